import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Operation as OperationRecord } from '../../db/generated/client.js';
import { runIdempotentService } from '../../http/idempotency.js';
import { CanonicalReceipt } from '../canonicalReceipts/schemas.js';
import { canonicalReceipt } from '../canonicalReceipts/service.js';
import { errorResponses } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { presentRefund, refundResult } from '../refunds/presenter.js';
import { EmptyBody, RefundOperation } from '../refunds/schemas.js';
import { cancelRefund, completeRefund, getRefund } from '../refunds/service.js';
import { BothStylesHeaders, BothStylesTransitionHeaders, describeBothStyles } from '../styleO/docs.js';
import { STYLE_O_IDEMPOTENCY, StyleOHeaders, StyleOMutationHeaders } from '../styleO/schemas.js';
import { STYLE_O } from '../styleO/styleConstraint.js';
import { CompleteOperationBody, Operation } from './schemas.js';

const STATE_RULES =
  'States (contract 3.4): open -> completed (complete) and open -> cancelled (cancel); any other transition is 409 operation_invalid_state.';

/**
 * Style O operations (contract 2.8, 2.9, 3.4): a refund read, completed
 * (signed) and cancelled, and the canonical receipt of any completed sale,
 * return or refund. The Style M routes of the same paths are in ./routes.ts.
 */
export const operationStyleORoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Refunds'];

  app.get(
    '/v1/operations/:id',
    {
      constraints: STYLE_O,
      config: describeBothStyles({
        tags: ['Operations'],
        operationId: 'getOperation',
        summary: 'Get an operation',
        description:
          'Style M (with X-Service-Merchant): any Style M operation; a refund is not one (404). Style O (without it): a refund, as the operation envelope of contract 2.8; Style M operations are read in Style M (404 here).',
        headers: BothStylesHeaders,
        params: IdParams,
        response: {
          200: z.union([Operation, RefundOperation]).describe('Style M: the operation (ETag carries its resource_version). Style O: the refund.'),
          ...errorResponses(400, 403, 404),
        },
      }),
      schema: {
        tags,
        summary: 'Get a refund (Style O)',
        headers: StyleOHeaders,
        params: IdParams,
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
        operationId: 'completeOperation',
        summary: 'Complete an open operation',
        description: [
          'Style M (with X-Service-Merchant): Idempotency-Key and If-Match required; body with payments; the operation is signed by the register\'s fiscal device, and a device failure is 422 with the operation still open.',
          'Style O (without it): completes an open refund; body {} or none, no If-Match, optional UUID Idempotency-Key.',
          'The refund is signed at once through the register\'s fiscal device, with negative amounts (KassenSichV: Kassenbeleg-V1, both events in fiscal; RKSV: a Standardbeleg in fiscal): with a healthy device the answer has fiscal_state succeeded; so does an RKSV refund signed while the signature device is out, its receipt carrying the failure marker.',
          'When the device fails the refund is still completed, with fiscal_state failed and the reason in fiscal.error; a background retry signs it later (fiscal_state succeeded).',
          'A register that cannot sign at all (not fiscalized, no active device) is 422 validation_error and the refund stays open.',
          'Both styles: once the operation\'s session is counted, complete is 409 session_already_counted, once it is closed 409 session_invalid_state (details session_id, session_status); nothing is signed, and void (Style O: cancel) stays possible.',
          STATE_RULES,
        ].join(' '),
        headers: BothStylesTransitionHeaders,
        params: IdParams,
        body: z.union([CompleteOperationBody, z.strictObject({})]),
        response: {
          200: z.union([Operation, RefundOperation]).describe('Style M: the operation, completed and signed. Style O: the refund, completed (fiscal_state tells whether it is signed yet).'),
          ...errorResponses(400, 403, 404, 409, 412, 422, 428),
        },
      }),
      schema: {
        tags,
        summary: 'Complete an open refund, signing it (Style O)',
        headers: StyleOMutationHeaders,
        params: IdParams,
        body: EmptyBody,
        response: { 200: RefundOperation, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
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
        operationId: 'cancelOperation',
        summary: 'Cancel an open refund (Style O)',
        description: `Body {} or none; optional UUID Idempotency-Key. Nothing was signed, and the quantities it held are free for other refunds. ${STATE_RULES}`,
        headers: StyleOMutationHeaders,
        params: IdParams,
        body: EmptyBody,
        response: { 200: RefundOperation.describe('The refund, cancelled'), ...errorResponses(400, 403, 404, 409) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
        (refund: OperationRecord) => refundResult(refund, 200),
        (finalize) => cancelRefund(app.ctx, request.merchant, request.params.id, finalize),
      ),
  );

  app.get(
    '/v1/operations/:id/receipt',
    {
      constraints: STYLE_O,
      schema: {
        tags: ['Receipts'],
        operationId: 'getCanonicalReceipt',
        summary: 'The canonical receipt of a completed sale, return or refund (Style O)',
        description:
          'Amounts in minor units. fiscal holds both signing events (print both for Germany) and verification.qr_data, the exact QR string. links.pdf is the printable receipt. An operation that is not completed is 409 operation_invalid_state; other operation types have no canonical receipt (404).',
        headers: StyleOHeaders,
        params: IdParams,
        response: { 200: CanonicalReceipt.describe('The canonical receipt of the operation'), ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => canonicalReceipt(app.ctx, request.merchant, request.params.id),
  );
};
