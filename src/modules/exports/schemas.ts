import { z } from 'zod';
import { cursorListOf, PageQuery, ResourceId, Timestamp, TimestampInput } from '../common/schemas.js';

/** Every export type the contract knows; only those with an exporter are built, the rest answer 501. */
export const EXPORT_TYPES = ['dsfinvk', 'dep'] as const;

export const CreateExportBody = z.strictObject({
  type: z.enum(EXPORT_TYPES),
  from: TimestampInput,
  to: TimestampInput,
  register_id: ResourceId.optional(),
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
