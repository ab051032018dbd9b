import type { Register as RegisterRecord } from '../../db/generated/client.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { etagOf, parseIfMatch } from '../../http/concurrency.js';
import { runIdempotentService, sendResult, type HttpResult } from '../../http/idempotency.js';
import { errorResponses, IdempotencyHeaders, StyleMHeaders, UpdateHeaders } from '../common/responses.js';
import { DeletedResponse, IdParams, listOf } from '../common/schemas.js';
import { presentRegister } from './presenter.js';
import { CreateRegisterBody, Register, UpdateRegisterBody } from './schemas.js';
import { createRegister, deleteRegister, findRegister, listRegisters, updateRegister } from './service.js';

export const registerResult = (register: RegisterRecord, status: number): HttpResult => ({
  status,
  body: presentRegister(register),
  headers: { etag: etagOf(register.resourceVersion) },
});

/** Style M registers (POS terminals). */
export const registerRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Registers'];
  const config = { merchantScoped: true };

  app.post(
    '/registers',
    {
      config,
      schema: {
        tags,
        operationId: 'createRegister',
        summary: 'Create a register at a location',
        headers: StyleMHeaders.merge(IdempotencyHeaders),
        body: CreateRegisterBody,
        response: { 201: Register.describe('The register created; ETag carries its resource_version'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, { required: false },
        (register: RegisterRecord) => registerResult(register, 201),
        (finalize) => createRegister(app.ctx, request.merchant, request.body, finalize),
      ),
  );

  app.get(
    '/registers',
    {
      config,
      schema: {
        tags,
        operationId: 'listRegisters',
        summary: 'List registers',
        headers: StyleMHeaders,
        response: { 200: listOf(Register).describe("The merchant's registers"), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => ({ data: (await listRegisters(app.ctx, request.merchant)).map(presentRegister) }),
  );

  app.get(
    '/registers/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getRegister',
        summary: 'Get a register',
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: Register.describe('The register; ETag carries its resource_version'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => sendResult(reply, registerResult(await findRegister(app.ctx.db, request.merchant, request.params.id), 200)),
  );

  app.patch(
    '/registers/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'updateRegister',
        summary: 'Update a register',
        headers: StyleMHeaders.merge(UpdateHeaders),
        params: IdParams,
        body: UpdateRegisterBody,
        response: { 200: Register.describe('The register as updated, with its new resource_version'), ...errorResponses(400, 403, 404, 409, 412, 422) },
      },
    },
    (request, reply) => {
      // A malformed If-Match is answered before the key is looked at, so it is never stored under it.
      const expected = parseIfMatch(request.headers['if-match'], false);
      return runIdempotentService(
        app.ctx.idempotency, request, reply, { required: false },
        (register: RegisterRecord) => registerResult(register, 200),
        (finalize) => updateRegister(app.ctx, request.merchant, request.params.id, request.body, expected, finalize),
      );
    },
  );

  app.delete(
    '/registers/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteRegister',
        summary: 'Delete a register that has no operations and was never fiscalized',
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: DeletedResponse.describe('The register was deleted'), ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      await deleteRegister(app.ctx, request.merchant, request.params.id);
      return { id: request.params.id, deleted: true as const };
    },
  );
};
