import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Operation as OperationRecord } from '../../db/generated/client.js';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { refundResult } from '../refunds/presenter.js';
import { CreateRefundBody, RefundOperation } from '../refunds/schemas.js';
import { createRefund } from '../refunds/service.js';
import { STYLE_O_IDEMPOTENCY, StyleOMutationHeaders } from '../styleO/schemas.js';
import { STYLE_O } from '../styleO/styleConstraint.js';

/** Style O register routes (contract 2.8, 4.3): a refund is created at the register. The Style M ones are in ./routes.ts. */
export const registerStyleORoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/registers/:id/refunds',
    {
      constraints: STYLE_O,
      schema: {
        tags: ['Refunds'],
        operationId: 'createRefund',
        summary: 'Refund a completed sale of the organization at this register (Style O)',
        description: [
          'Creates the refund in state open with fiscal_state pending and the register\'s next sequence number (shared with every operation of the register); the register needs an open session (409 no_open_session otherwise).',
          'refund_type full (default) returns every line of a sale without earlier refunds; partial returns the quantities in line_items, each at its share of the sale line\'s amounts after all discounts.',
          'Refunds together (open and completed ones) never exceed the sale: 422 validation_error naming the field (refund_type, line_items[i].quantity).',
          'All amounts are integers in minor units; totals.net_payable is negative (money back to the customer).',
          'Complete it with POST /v1/operations/{id}/complete, which signs it.',
        ].join(' '),
        headers: StyleOMutationHeaders,
        params: IdParams,
        body: CreateRefundBody,
        response: { 201: RefundOperation.describe('The refund, open with fiscal_state pending'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
        (refund: OperationRecord) => refundResult(refund, 201),
        (finalize) => createRefund(app.ctx, request.merchant, request.params.id, request.body, finalize),
      ),
  );
};
