import { sqlOf } from '../../db/sql.js';
import type { ExportFinished } from '../../exports/exportQueue.js';
import { recordEvent } from '../../outbox/recordEvent.js';
import { presentExport, type DownloadLinks } from '../exports/presenter.js';

/** For the export worker: `export.completed` or `export.failed` in the transaction that finishes the job, the job as GET /v1/exports/{id} shows it. */
export const recordExportFinished =
  (links: DownloadLinks): ExportFinished =>
  async (tx, jobId) => {
    const job = await tx.exportJob.findUniqueOrThrow({ where: { id: jobId } });
    await recordEvent(sqlOf(tx), {
      type: job.status === 'completed' ? 'export.completed' : 'export.failed',
      merchantId: job.merchantId,
      data: { object: presentExport(job, links) },
    });
  };
