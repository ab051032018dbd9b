import { Readable } from 'node:stream';
import type { ExportJob, Merchant } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { DomainError, forbidden, notFound, validationError } from '../../domain/errors.js';
import { newId } from '../../lib/ids.js';
import type { Finalize } from '../common/transactions.js';
import { findRegister } from '../registers/service.js';
import { exportCovers, type ExportFormat } from '../../exports/exportFormat.js';
import { EXPORT_FORMATS, type ExportType } from '../../exports/exportFormats.js';
import type { z } from 'zod';
import { afterCursor, NEWEST_FIRST, pageOf } from '../common/cursor.js';
import type { CreateExportBody, ListExportsQuery } from './schemas.js';
import { sqlOf } from '../../db/sql.js';

export async function createExport(
  ctx: AppContext,
  merchant: Merchant,
  body: z.infer<typeof CreateExportBody>,
  finalize?: Finalize<ExportJob>,
): Promise<ExportJob> {
  if (!isBuilt(body.type)) {
    throw new DomainError('not_implemented', 'not_implemented', `No exporter is available for export type ${body.type}`, { field: 'type', type: body.type });
  }
  const format = EXPORT_FORMATS[body.type];
  const from = new Date(body.from);
  const to = new Date(body.to);
  if (from > to) throw validationError('from must not be after to', { field: 'to' });
  const registerId = await registerToExport(ctx, merchant, format, body);
  if (registerId) {
    const register = await findRegister(ctx.db, merchant, registerId);
    if (!exportCovers(format.regime, register)) {
      throw validationError(`${format.title} exports cover fiscalized ${format.regime} registers only`, {
        field: 'register_id',
        register_id: register.id,
        type: body.type,
      });
    }
  }
  const job = await ctx.db.$transaction(async (tx) => {
    const created = await tx.exportJob.create({
      data: {
        id: newId('exp'),
        merchantId: merchant.id,
        type: body.type,
        status: 'pending',
        registerId: registerId ?? null,
        fromTime: from,
        toTime: to,
      },
    });
    await finalize?.(sqlOf(tx), created);
    return created;
  });
  ctx.exportWorker?.wake();
  return job;
}

const isBuilt = (type: string): type is ExportType => Object.hasOwn(EXPORT_FORMATS, type);

/**
 * The register the job covers: register_id, or for an export of one device
 * (tse_tar) the register whose TSE has tss_serial_number; undefined for all of
 * the merchant's registers. A device export must name one, in exactly one way.
 */
async function registerToExport(
  ctx: AppContext,
  merchant: Merchant,
  format: ExportFormat,
  body: z.infer<typeof CreateExportBody>,
): Promise<string | undefined> {
  const serial = body.tss_serial_number;
  if (!format.oneDevice) {
    if (serial !== undefined) throw validationError(`${format.title} exports take register_id, not tss_serial_number`, { field: 'tss_serial_number' });
    return body.register_id;
  }
  if (serial !== undefined && body.register_id) {
    throw validationError('Name the register by register_id or by tss_serial_number, not both', { field: 'tss_serial_number' });
  }
  if (serial === undefined) {
    if (!body.register_id) throw validationError(`A ${format.title} export is of one register's TSE: give register_id or tss_serial_number`, { field: 'register_id' });
    return body.register_id;
  }
  // Serials are stored as the TSE derives them: lower-case hex (reference §5).
  const tse = await ctx.db.tseDevice.findFirst({ where: { serialNumber: serial.toLowerCase(), merchantId: merchant.id }, select: { id: true } });
  const register = tse ? await ctx.db.register.findFirst({ where: { merchantId: merchant.id, deviceId: tse.id }, select: { id: true } }) : null;
  if (!register) throw validationError('No register of this merchant has a TSE with this serial', { field: 'tss_serial_number', tss_serial_number: serial });
  return register.id;
}

export async function getExport(ctx: AppContext, merchant: Merchant, id: string): Promise<ExportJob> {
  const job = await ctx.db.exportJob.findFirst({ where: { id, merchantId: merchant.id } });
  if (!job) throw notFound('export', id);
  return job;
}

/** Contract 2.5 shows these as they are; every other stored status (pending, running) is `pending` to the client. */
const FINISHED_STATUSES = ['completed', 'failed'] as const;

export const isFinished = (status: string): status is (typeof FINISHED_STATUSES)[number] =>
  (FINISHED_STATUSES as readonly string[]).includes(status);

/** The merchant's jobs, newest first, keyset-paginated (common/cursor.ts). */
export async function listExports(
  ctx: AppContext,
  merchant: Merchant,
  query: z.infer<typeof ListExportsQuery>,
): Promise<{ jobs: ExportJob[]; cursor: string | null }> {
  const rows = await ctx.db.exportJob.findMany({
    where: {
      merchantId: merchant.id,
      ...(query.type ? { type: query.type } : {}),
      ...(query.status ? { status: query.status === 'pending' ? { notIn: [...FINISHED_STATUSES] } : query.status } : {}),
      ...(query.register_id ? { registerId: query.register_id } : {}),
      ...afterCursor(query.cursor),
    },
    orderBy: NEWEST_FIRST,
    take: query.limit + 1,
  });
  const { page, cursor } = pageOf(rows, query.limit);
  return { jobs: page, cursor };
}

export const downloadResource = (jobId: string) => `export:${jobId}`;

/** Streams a completed archive for a valid signed link; tampered or expired links are refused. */
export async function openDownload(ctx: AppContext, id: string, expires: number, signature: string): Promise<{ job: ExportJob; stream: Readable }> {
  const verdict = ctx.urlSigner.verify(downloadResource(id), expires, signature);
  if (verdict !== 'valid') {
    throw forbidden(verdict === 'expired' ? 'This download link has expired; fetch the export again for a fresh one' : 'Invalid download link', {
      reason: verdict,
    });
  }
  const job = await ctx.db.exportJob.findUnique({ where: { id } });
  if (!job || job.status !== 'completed') throw notFound('export', id);
  const db = ctx.db;
  async function* chunks() {
    for (let sequence = 0; ; sequence += 1) {
      const chunk = await db.exportChunk.findUnique({ where: { jobId_attempt_sequence: { jobId: job!.id, attempt: job!.attempts, sequence } } });
      if (!chunk) return;
      yield Buffer.from(chunk.data);
    }
  }
  return { job, stream: Readable.from(chunks()) };
}
