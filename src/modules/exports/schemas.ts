import { z } from 'zod';
import { EXPORT_FORMATS, EXPORT_TYPES } from '../../exports/exportFormats.js';
import { cursorListOf, PageQuery, ResourceId, Timestamp, TimestampInput } from '../common/schemas.js';

/**
 * Export types the service knows but builds no exporter for: asked for, they are 501
 * not_implemented (contract 7), not 400 as an unknown type. `dep`: the full journal of
 * § 131 BAO (DEP131), which Austria requires besides the signed DEP7 journal (rksv_dep7).
 */
export const UNBUILT_EXPORT_TYPES = ['dep'] as const;

/** What each type is and which registers it covers, e.g. "dsfinvk: DSFinV-K of KassenSichV registers". */
const TYPE_DESCRIPTION = [
  ...Object.entries(EXPORT_FORMATS).map(([type, format]) => `${type}: ${format.title} of ${format.regime} registers`),
  ...UNBUILT_EXPORT_TYPES.map((type) => `${type}: known, not built (501 not_implemented)`),
].join('; ');

export const CreateExportBody = z.strictObject({
  type: z.enum([...EXPORT_TYPES, ...UNBUILT_EXPORT_TYPES]).describe(TYPE_DESCRIPTION),
  from: TimestampInput,
  to: TimestampInput,
  register_id: ResourceId.optional().describe('The register to export; required by tse_tar unless tss_serial_number names it'),
  tss_serial_number: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'a TSE serial: 64 hex digits')
    .optional()
    .describe('tse_tar only, instead of register_id: the TSE serial (fiscalization.tse_serial), resolved to its register when the job is created'),
});

export const ExportJob = z
  .object({
    id: z.string(),
    type: z.enum(EXPORT_TYPES),
    status: z.enum(['pending', 'completed', 'failed']),
    register_id: z.string().optional(),
    from: Timestamp,
    to: Timestamp,
    created_at: Timestamp,
    completed_at: Timestamp.optional(),
    download_url: z.string().optional(),
    download_url_expires_at: Timestamp.optional(),
    error: z.object({ message: z.string(), details: z.record(z.string(), z.unknown()).optional() }).optional(),
  })
  .meta({ id: 'ExportJob' });

export type ExportJobView = z.infer<typeof ExportJob>;

export const ListExportsQuery = z.strictObject({
  type: z.enum(EXPORT_TYPES).optional(),
  status: z.enum(['pending', 'completed', 'failed']).optional().describe('pending includes a job being built'),
  register_id: ResourceId.optional(),
  ...PageQuery,
});

export const ExportJobList = cursorListOf(ExportJob);

export type ExportJobListView = z.infer<typeof ExportJobList>;

export const DownloadQuery = z.strictObject({
  expires: z.coerce.number().int().positive(),
  signature: z.string().min(1).max(200),
});
