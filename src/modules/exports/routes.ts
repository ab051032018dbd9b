import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ExportJob as ExportJobRecord } from '../../db/generated/client.js';
import { runIdempotentService, type HttpResult } from '../../http/idempotency.js';
import { errorResponses, IdempotencyHeaders, StyleMHeaders } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { EXPORT_FORMATS, type ExportType } from '../../exports/exportFormats.js';
import { presentExport, presentExportList } from './presenter.js';
import { CreateExportBody, DownloadQuery, ExportJob, ExportJobList, ListExportsQuery } from './schemas.js';
import { createExport, getExport, listExports, openDownload } from './service.js';

/** What a download may be, one entry per kind of archive the formats build. */
const ARCHIVE_MEDIA_TYPES = [...new Set(Object.values(EXPORT_FORMATS).map((format) => format.archive.mediaType))];

/** Asynchronous fiscal exports (contract 2.5, 4.1) and their signed downloads. */
export const exportRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Exports'];
  const config = { merchantScoped: true };
  const links = () => ({ publicBaseUrl: app.ctx.publicBaseUrl, signer: app.ctx.urlSigner, ttlSeconds: app.ctx.config.exportUrlTtlSeconds });
  // 202 Accepted names where the job can be watched (RFC 9110 §15.3.3).
  const accepted = (job: ExportJobRecord): HttpResult => ({
    status: 202,
    body: presentExport(job, links()),
    headers: { location: `${app.ctx.publicBaseUrl}/v1/exports/${job.id}` },
  });

  app.post(
    '/exports',
    {
      config,
      schema: {
        tags,
        operationId: 'createExport',
        summary: 'Start an export job',
        description:
          'Builds the audit export of `type` over [from, to] asynchronously: for the named register, or without register_id for every register ' +
          'of the merchant that ever signed under the type\'s regime. A register of another regime is 422 naming register_id. ' +
          'tse_tar is the TSE TAR export (BSI TR-03153) of one register\'s TSE, of the transactions started in [from, to): ' +
          'register_id or tss_serial_number is required (422 naming the field otherwise).',
        headers: StyleMHeaders.merge(IdempotencyHeaders),
        body: CreateExportBody,
        response: { 202: ExportJob.describe('The export job, pending; Location names where to watch it'), ...errorResponses(400, 403, 404, 409, 422, 501) },
      },
    },
    (request, reply) =>
      runIdempotentService(app.ctx.idempotency, request, reply, { required: false }, accepted, (finalize) =>
        createExport(app.ctx, request.merchant, request.body, finalize),
      ),
  );

  app.get(
    '/exports',
    {
      config,
      schema: {
        tags,
        operationId: 'listExports',
        summary: 'List export jobs, newest first',
        description: 'The merchant\'s export jobs, filtered by type, status and register_id, in pages of `limit` (1-200, default 50); pass the returned `cursor` for the next page.',
        headers: StyleMHeaders,
        querystring: ListExportsQuery,
        response: {
          200: ExportJobList.describe('A page of export jobs, newest first; `cursor` names the next page and is null on the last'),
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (request) => presentExportList(await listExports(app.ctx, request.merchant, request.query), links()),
  );

  app.get(
    '/exports/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getExport',
        summary: 'Get an export job',
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: ExportJob.describe('The export job; once completed, with a signed download_url'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => presentExport(await getExport(app.ctx, request.merchant, request.params.id), links()),
  );

  app.get(
    '/exports/:id/download',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'downloadExport',
        summary: 'Download a completed export (application/zip; tse_tar: application/x-tar); the signed, expiring link is the credential',
        security: [],
        params: IdParams,
        querystring: DownloadQuery,
        response: {
          200: { description: 'The export archive', content: Object.fromEntries(ARCHIVE_MEDIA_TYPES.map((type) => [type, { schema: z.string().meta({ format: 'binary' }) }])) },
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { job, stream } = await openDownload(app.ctx, request.params.id, request.query.expires, request.query.signature);
      const { archive } = EXPORT_FORMATS[job.type as ExportType];
      return (reply as FastifyReply)
        .type(archive.mediaType)
        .header('content-disposition', `attachment; filename="${job.type}-${job.id}.${archive.extension}"`)
        .header('content-length', String(job.byteSize))
        .header('cache-control', 'private, no-store')
        .send(stream);
    },
  );
};
