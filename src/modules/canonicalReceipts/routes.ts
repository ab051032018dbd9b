import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../common/responses.js';
import { StyleOHeaders } from '../organizations/schemas.js';
import { STYLE_O } from '../organizations/styleConstraint.js';
import { OperationIdParams } from '../refunds/schemas.js';
import { CanonicalReceipt } from './schemas.js';
import { canonicalReceipt } from './service.js';

/** GET /operations/{id}/receipt (Style O, contract 2.9). */
export const canonicalReceiptRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/operations/:id/receipt',
    {
      constraints: STYLE_O,
      schema: {
        tags: ['Receipts'],
        summary: 'The canonical receipt of a completed sale, return or refund (Style O)',
        description:
          'Amounts in minor units. fiscal holds both signing events (print both for Germany) and verification.qr_data, the exact QR string. links.pdf is the printable receipt. An operation that is not completed is 409 operation_invalid_state; other operation types have no canonical receipt (404).',
        headers: StyleOHeaders,
        params: OperationIdParams,
        response: { 200: CanonicalReceipt, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => canonicalReceipt(app.ctx, request.merchant, request.params.id),
  );
};
