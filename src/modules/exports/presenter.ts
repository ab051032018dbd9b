import type { ExportJob } from '../../db/generated/client.js';
import type { UrlSigner } from '../../lib/signedUrl.js';
import type { ExportJobListView, ExportJobView } from './schemas.js';
import { downloadResource, isFinished } from './service.js';

export interface DownloadLinks {
  publicBaseUrl: string;
  signer: UrlSigner;
  ttlSeconds: number;
}

/** Contract 2.5: a running job is still `pending` to the client; the link is signed afresh on every read. */
export function presentExport(job: ExportJob, links: DownloadLinks): ExportJobView {
  const view: ExportJobView = {
    id: job.id,
    type: job.type as ExportJobView['type'],
    status: isFinished(job.status) ? job.status : 'pending',
    ...(job.registerId ? { register_id: job.registerId } : {}),
    from: job.fromTime.toISOString(),
    to: job.toTime.toISOString(),
    created_at: job.createdAt.toISOString(),
  };
  if (job.status === 'completed') {
    const { expires, signature } = links.signer.sign(downloadResource(job.id), links.ttlSeconds);
    view.completed_at = job.completedAt?.toISOString();
    view.download_url = `${links.publicBaseUrl}/v1/exports/${job.id}/download?expires=${expires}&signature=${signature}`;
    view.download_url_expires_at = new Date(expires * 1000).toISOString();
  }
  if (job.status === 'failed') view.error = job.error as ExportJobView['error'];
  return view;
}

export function presentExportList(list: { jobs: ExportJob[]; cursor: string | null }, links: DownloadLinks): ExportJobListView {
  return { data: list.jobs.map((job) => presentExport(job, links)), cursor: list.cursor };
}
