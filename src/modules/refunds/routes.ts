import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Operation as OperationRecord } from '../../db/generated/client.js';
import { runIdempotentService, type HttpResult } from '../../http/idempotency.js';
import { errorResponses, MutationHeaders, StyleMHeaders } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { CompleteOperationBody, Operation } from '../operations/schemas.js';
import { describeBothStyles } from '../organizations/docs.js';
import { StyleOHeaders, StyleOMutationHeaders } from '../organizations/schemas.js';
import { STYLE_O } from '../organizations/styleConstraint.js';
import { presentRefund } from './presenter.js';
import { CreateRefundBody, EmptyBody, OperationIdParams, RefundOperation, RegisterIdParams } from './schemas.js';
import { cancelRefund, completeRefund, createRefund, getRefund } from './service.js';

export const refundResult = (refund: OperationRecord, status: number): HttpResult => ({ status, body: presentRefund(refund) });

const IDEMPOTENCY = { required: false, format: 'uuid' } as const;

const STATE_RULES =
  'States (contract 3.4): open -> completed (complete) and open -> cancelled (cancel); any other transition is 409 operation_invalid_state.';

/** Style O refunds (contract 2.8, 3.4, 4.3). */
export const refundRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Refunds'];

  app.post(
    '/v1/registers/:id/refunds',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        summary: 'Refund a completed sale of the organization at this register (Style O)',
        description: [
          'Creates the refund in state open with fiscal_state pending and the register\'s next sequence number (shared with every operation of the register); the register needs an open session (409 no_open_session otherwise).',
          'refund_type full (default) returns every line of a sale without earlier refunds; partial returns the quantities in line_items, each at its share of the sale line\'s amounts after all discounts.',
          'Refunds together (open and completed ones) never exceed the sale: 422 validation_error naming the field (refund_type, line_items[i].quantity).',
          'All amounts are integers in minor units; totals.net_payable is negative (money back to the customer).',
          'Complete it with POST /v1/operations/{id}/complete, which signs it.',
        ].join(' '),
        headers: StyleOMutationHeaders,
        params: RegisterIdParams,
        body: CreateRefundBody,
        response: { 201: RefundOperation, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, IDEMPOTENCY,
        (refund: OperationRecord) => refundResult(refund, 201),
        (finalize) => createRefund(app.ctx, request.merchant, request.params.id, request.body, finalize),
      ),
  );

  app.get(
    '/v1/operations/:id',
    {
      constraints: STYLE_O,
      config: describeBothStyles({
        tags: ['Operations'],
        summary: 'Get an operation',
        description:
          'Style M (with X-Service-Merchant): any Style M operation; a refund is not one (404). Style O (without it): a refund, as the operation envelope of contract 2.8; Style M operations are read in Style M (404 here).',
        headers: StyleMHeaders.merge(StyleOHeaders),
        params: IdParams,
        response: { 200: z.union([Operation, RefundOperation]), ...errorResponses(400, 403, 404) },
      }),
      schema: {
        tags,
        summary: 'Get a refund (Style O)',
        headers: StyleOHeaders,
        params: OperationIdParams,
        response: { 200: RefundOperation, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => presentRefund(await getRefund(app.ctx, request.merchant, request.params.id)),
  );

  app.post(
    '/v1/operations/:id/complete',
    {
      constraints: STYLE_O,
      config: describeBothStyles({
        tags: ['Operations'],
        summary: 'Complete an open operation',
        description: [
          'Style M (with X-Service-Merchant): Idempotency-Key and If-Match required; body with payments; the operation is signed by the register\'s fiscal device, and a device failure is 422 with the operation still open.',
          'Style O (without it): completes an open refund; body {} or none, no If-Match, optional UUID Idempotency-Key.',
          'The refund is signed at once through the register\'s fiscal device (KassenSichV: Kassenbeleg-V1 with negative amounts): with a healthy device the answer has fiscal_state succeeded and both events in fiscal.',
          'When the device fails the refund is still completed, with fiscal_state failed and the reason in fiscal.error; a background retry signs it later (fiscal_state succeeded).',
          'A register that cannot sign at all (not fiscalized, no active device) is 422 validation_error and the refund stays open.',
          'Both styles: once the operation\'s session is counted, complete is 409 session_already_counted, once it is closed 409 session_invalid_state (details session_id, session_status); nothing is signed, and void (Style O: cancel) stays possible.',
          STATE_RULES,
        ].join(' '),
        headers: StyleMHeaders.merge(MutationHeaders).merge(StyleOHeaders),
        params: IdParams,
        body: z.union([CompleteOperationBody, z.strictObject({})]),
        response: { 200: z.union([Operation, RefundOperation]), ...errorResponses(400, 403, 404, 409, 412, 422, 428) },
      }),
      schema: {
        tags,
        summary: 'Complete an open refund, signing it (Style O)',
        headers: StyleOMutationHeaders,
        params: OperationIdParams,
        body: EmptyBody,
        response: { 200: RefundOperation, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, IDEMPOTENCY,
        (refund: OperationRecord) => refundResult(refund, 200),
        (finalize) => completeRefund(app.ctx, request.merchant, request.params.id, finalize),
      ),
  );

  app.post(
    '/v1/operations/:id/cancel',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        summary: 'Cancel an open refund (Style O)',
        description: `Body {} or none; optional UUID Idempotency-Key. Nothing was signed, and the quantities it held are free for other refunds. ${STATE_RULES}`,
        headers: StyleOMutationHeaders,
        params: OperationIdParams,
        body: EmptyBody,
        response: { 200: RefundOperation, ...errorResponses(400, 403, 404, 409) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, IDEMPOTENCY,
        (refund: OperationRecord) => refundResult(refund, 200),
        (finalize) => cancelRefund(app.ctx, request.merchant, request.params.id, finalize),
      ),
  );
};
