import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses, RequiredIdempotencyHeaders, StyleMHeaders } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { presentNullReceipt } from './nullReceiptPresenter.js';
import { CreateNullReceiptBody, NullReceipt, NullReceiptList } from './nullReceiptSchemas.js';
import { issueNullReceipt, listNullReceipts, type NullReceiptRecord } from './nullReceiptService.js';

/** Null receipts (Nullbelege) of Austrian registers: requested ones, and the journal of all of them. */
export const nullReceiptRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Registers'];
  const config = { merchantScoped: true };

  app.post(
    '/registers/:id/null-receipts',
    {
      config,
      schema: {
        tags,
        operationId: 'createNullReceipt',
        summary: 'Sign a null receipt on an RKSV register: a control, monthly, annual or closing receipt',
        description:
          'Receipts that are due come first, automatically: the previous month\'s monthly (annual) receipt, and the collective ' +
          'receipt after a signature device failure. While the signature device is out the receipt carries the failure marker ' +
          '(signature_device_failed). A monthly receipt closes the current month in Vienna (annual in December; the other type is ' +
          '422 regime_validation_failed); a closing receipt takes the register out of service (fiscalization_status decommissioned, ' +
          'status inactive), after which it takes no further operations or receipts (409 register_invalid_fiscal_state). ' +
          'Registers that are not RKSV registers, or not fiscalized, are 422 validation_error.',
        headers: StyleMHeaders.merge(RequiredIdempotencyHeaders),
        params: IdParams,
        body: CreateNullReceiptBody,
        response: { 201: NullReceipt.describe('The null receipt, signed and journaled'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, { required: true },
        (receipt: NullReceiptRecord) => ({ status: 201, body: presentNullReceipt(receipt) }),
        (finalize) => issueNullReceipt(app.ctx, request.merchant, request.params.id, request.body.type, finalize),
      ),
  );

  app.get(
    '/registers/:id/null-receipts',
    {
      config,
      schema: {
        tags,
        operationId: 'listNullReceipts',
        summary: "List a register's null receipts in signing order",
        description:
          'Every receipt of the register without turnover: the start receipt, requested null, monthly, annual and closing ' +
          'receipts, those the service issued automatically (monthly, annual) and the collective receipts after a signature ' +
          'device failure. Empty for a register that never signed under RKSV.',
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: NullReceiptList.describe("The register's null receipts, oldest first"), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => ({ data: (await listNullReceipts(app.ctx, request.merchant, request.params.id)).map(presentNullReceipt) }),
  );
};
