import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Operation as OperationRecord } from '../../db/generated/client.js';
import { etagOf, parseIfMatch } from '../../http/concurrency.js';
import { validationError } from '../../domain/errors.js';
import { runIdempotentService, sendResult, type HttpResult } from '../../http/idempotency.js';
import { errorResponses, RequiredIdempotencyHeaders, StyleMHeaders, TransitionHeaders } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { completeOperation, getOperation, voidOperation } from './completeOperation.js';
import { createGoodsMovement } from './createGoodsMovement.js';
import { listOperations } from './listOperations.js';
import { presentOperation } from './presenter.js';
import { recordSessionEvent } from './recordSessionEvent.js';
import {
  CompleteOperationBody,
  CreateOperationBody,
  ListOperationsQuery,
  Operation,
  OperationList,
  VoidOperationBody,
  type GoodsMovementBody,
  type SessionEventBody,
} from './schemas.js';

export const operationResult = (operation: OperationRecord, status: number): HttpResult => ({
  status,
  body: presentOperation(operation),
  headers: { etag: etagOf(operation.resourceVersion) },
});

const GOODS = new Set(['sale', 'return', 'exchange']);

/** Style M operations: goods movements and register-session events. */
export const operationRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Operations'];
  const config = { merchantScoped: true };

  app.post(
    '/operations',
    {
      config,
      // Contract 4.2 rule 10: `refund` is money movement here; goods coming back are a `return`.
      preValidation: async (request) => {
        const body = request.body as { type?: unknown } | undefined;
        if (body && typeof body === 'object' && body.type === 'refund') {
          throw validationError("type 'refund' is not an operation type; record goods coming back as type 'return'", {
            field: 'type',
            expected: 'return',
          });
        }
      },
      schema: {
        tags,
        operationId: 'createOperation',
        summary: 'Record a sale, return, exchange or register-session event',
        headers: StyleMHeaders.merge(RequiredIdempotencyHeaders),
        body: CreateOperationBody,
        response: { 201: Operation.describe('The operation recorded; ETag carries its resource_version'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, { required: true },
        (operation: OperationRecord) => operationResult(operation, 201),
        (finalize) =>
          GOODS.has(request.body.type)
            ? createGoodsMovement(app.ctx, request.merchant, request.body as GoodsMovementBody, finalize)
            : recordSessionEvent(app.ctx, request.merchant, request.body as SessionEventBody, finalize),
      ),
  );

  app.get(
    '/operations',
    {
      config,
      schema: {
        tags,
        operationId: 'listOperations',
        summary: 'List operations, newest first',
        headers: StyleMHeaders,
        querystring: ListOperationsQuery,
        response: { 200: OperationList.describe('One page of operations and the cursor of the next'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const { operations, cursor } = await listOperations(app.ctx, request.merchant, request.query);
      return { data: operations.map(presentOperation), cursor };
    },
  );

  app.get(
    '/operations/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getOperation',
        summary: 'Get an operation',
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: Operation.describe('The operation; ETag carries its resource_version'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => sendResult(reply, operationResult(await getOperation(app.ctx, request.merchant, request.params.id), 200)),
  );

  // The contract names complete with POST everywhere and with PATCH in one listing: both are served,
  // as two operations of the document.
  const complete = (method: 'POST' | 'PATCH', operationId: string, description?: string) =>
    app.route({
      method,
      url: '/operations/:id/complete',
      config,
      schema: {
        tags,
        operationId,
        summary: 'Complete an open operation: payments attached, signed by the fiscal device',
        ...(description ? { description } : {}),
        headers: StyleMHeaders.merge(TransitionHeaders),
        params: IdParams,
        body: CompleteOperationBody,
        response: { 200: Operation.describe('The operation, completed and signed'), ...errorResponses(400, 403, 404, 409, 412, 422, 428) },
      },
      handler: (request, reply) => {
        // Header problems are answered before the idempotency key is claimed, so they are never stored.
        const expected = parseIfMatch(request.headers['if-match'], true);
        return runIdempotentService(
          app.ctx.idempotency, request, reply, { required: true },
          (operation: OperationRecord) => operationResult(operation, 200),
          (finalize) => completeOperation(app.ctx, request.merchant, request.params.id, request.body, expected, finalize),
        );
      },
    });
  complete('POST', 'completeOperation');
  complete('PATCH', 'completeOperationWithPatch', 'The same call as POST /v1/operations/{id}/complete, under the method one listing of the contract gives it.');

  app.post(
    '/operations/:id/void',
    {
      config,
      schema: {
        tags,
        operationId: 'voidOperation',
        summary: 'Void an open operation',
        headers: StyleMHeaders.merge(TransitionHeaders),
        params: IdParams,
        body: VoidOperationBody,
        response: { 200: Operation.describe('The operation, voided (voided_at and void_reason set)'), ...errorResponses(400, 403, 404, 409, 412, 428) },
      },
    },
    (request, reply) => {
      const expected = parseIfMatch(request.headers['if-match'], true);
      return runIdempotentService(
        app.ctx.idempotency, request, reply, { required: true },
        (operation: OperationRecord) => operationResult(operation, 200),
        (finalize) => voidOperation(app.ctx, request.merchant, request.params.id, request.body.reason, expected, finalize),
      );
    },
  );
};
