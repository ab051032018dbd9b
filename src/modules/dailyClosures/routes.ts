import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RtDailyClosure } from '../../db/generated/client.js';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses, IdempotencyHeaders, StyleMHeaders } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { presentDailyClosure } from './presenter.js';
import { DailyClosure, DailyClosureList } from './schemas.js';
import { createDailyClosure, getDailyClosure, getDailyClosureCor10, listDailyClosures } from './service.js';

/** Daily closures (Z reports) of Italian RT registers, their COR10 files and transmission (DESIGN "Italy: RT"). */
export const dailyClosureRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Daily closures'];
  const config = { merchantScoped: true };
  const present = (closure: RtDailyClosure) => presentDailyClosure(closure, app.ctx.publicBaseUrl);

  app.post(
    '/registers/:id/daily-closures',
    {
      config,
      schema: {
        tags,
        operationId: 'createDailyClosure',
        summary: "Close an RT register's open fiscal day (Z report); its COR10 is transmitted in the background",
        description:
          'No body. The day is totalled per VAT rate or natura, with returns, cash and electronic payments and the document count; ' +
          'the next document is <fiscal_day + 1>-0001. A day without documents may be closed too. A register that is not a fiscalized RT register is 422 naming register_id.',
        headers: StyleMHeaders.merge(IdempotencyHeaders),
        params: IdParams,
        response: { 201: DailyClosure.describe('The closure, its transmission pending (or, for a printer, handed to the printer)'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, { required: false },
        (closure: RtDailyClosure) => ({ status: 201, body: present(closure), headers: { location: `${app.ctx.publicBaseUrl}/v1/daily-closures/${closure.id}` } }),
        (finalize) => createDailyClosure(app.ctx, request.merchant, request.params.id, finalize),
      ),
  );

  app.get(
    '/registers/:id/daily-closures',
    {
      config,
      schema: {
        tags,
        operationId: 'listDailyClosures',
        summary: "List a register's daily closures, newest first",
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: DailyClosureList.describe("The register's daily closures, newest first"), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => ({ data: (await listDailyClosures(app.ctx, request.merchant, request.params.id)).map(present) }),
  );

  app.get(
    '/daily-closures/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getDailyClosure',
        summary: 'Get a daily closure',
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: DailyClosure.describe('The daily closure with its transmission as it stands'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => present(await getDailyClosure(app.ctx, request.merchant, request.params.id)),
  );

  app.get(
    '/daily-closures/:id/cor10',
    {
      config,
      schema: {
        tags,
        operationId: 'getDailyClosureCor10',
        summary: "Get a daily closure's COR10 XML, signed by the device",
        headers: StyleMHeaders,
        params: IdParams,
        response: {
          200: { description: 'The COR10 file (DatiCorrispettivi, enveloped XML-DSig signature)', content: { 'application/xml': { schema: z.string() } } },
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (request, reply) =>
      (reply as FastifyReply).type('application/xml; charset=utf-8').send(await getDailyClosureCor10(app.ctx, request.merchant, request.params.id)),
  );
};
