import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { etagOf, parseIfMatch } from '../../http/concurrency.js';
import { runIdempotentService, sendResult, type HttpResult } from '../../http/idempotency.js';
import { DeletedResponse, IdParams, listOf } from '../common/schemas.js';
import { errorResponses, IdempotencyHeaders, UpdateHeaders } from '../common/responses.js';
import { presentMerchant } from './presenter.js';
import { CreateMerchantBody, Merchant, UpdateMerchantBody } from './schemas.js';
import { createMerchant, deleteMerchant, getMerchant, listMerchants, updateMerchant, type MerchantWithFisconline as MerchantRecord } from './service.js';


const merchantResult = (merchant: MerchantRecord, status: number): HttpResult => ({
  status,
  body: presentMerchant(merchant),
  headers: { etag: etagOf(merchant.resourceVersion) },
});

export const merchantRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Merchants'];

  app.post(
    '/merchants',
    {
      schema: {
        tags,
        operationId: 'createMerchant',
        summary: 'Create a merchant (in the key\'s country)',
        headers: IdempotencyHeaders,
        body: CreateMerchantBody,
        response: { 201: Merchant.describe('The merchant created; ETag carries its resource_version'), ...errorResponses(400, 403, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, { required: false },
        (merchant: MerchantRecord) => merchantResult(merchant, 201),
        (finalize) => createMerchant(app.ctx, request.principal, request.body, finalize),
      ),
  );

  app.get(
    '/merchants',
    {
      schema: {
        tags,
        operationId: 'listMerchants',
        summary: 'List merchants',
        response: { 200: listOf(Merchant).describe("The merchants of the key's tenant and country"), ...errorResponses(403) },
      },
    },
    async (request) => ({ data: (await listMerchants(app.ctx, request.principal)).map(presentMerchant) }),
  );

  app.get(
    '/merchants/:id',
    {
      schema: {
        tags,
        operationId: 'getMerchant',
        summary: 'Get a merchant',
        params: IdParams,
        response: { 200: Merchant.describe('The merchant; ETag carries its resource_version'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => sendResult(reply, merchantResult(await getMerchant(app.ctx, request.principal, request.params.id), 200)),
  );

  app.patch(
    '/merchants/:id',
    {
      schema: {
        tags,
        operationId: 'updateMerchant',
        summary: 'Update a merchant; fiscal_identities are merged by country_code',
        params: IdParams,
        headers: UpdateHeaders,
        body: UpdateMerchantBody,
        response: { 200: Merchant.describe('The merchant as updated, with its new resource_version'), ...errorResponses(400, 403, 404, 409, 412, 422) },
      },
    },
    (request, reply) => {
      // A malformed If-Match is answered before the key is looked at, so it is never stored under it.
      const expected = parseIfMatch(request.headers['if-match'], false);
      return runIdempotentService(
        app.ctx.idempotency, request, reply, { required: false },
        (merchant: MerchantRecord) => merchantResult(merchant, 200),
        (finalize) => updateMerchant(app.ctx, request.principal, request.params.id, request.body, expected, finalize),
      );
    },
  );

  app.delete(
    '/merchants/:id',
    {
      schema: {
        tags,
        operationId: 'deleteMerchant',
        summary: 'Delete a merchant without locations',
        params: IdParams,
        response: { 200: DeletedResponse.describe('The merchant was deleted'), ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      await deleteMerchant(app.ctx, request.principal, request.params.id);
      return { id: request.params.id, deleted: true as const };
    },
  );
};
