import type { ExportJob } from '../../db/generated/client.js';
import type { UrlSigner } from '../../lib/signedUrl.js';
import type { ExportJobView } from './schemas.js';
import { downloadResource } from './service.js';

/** Contract 2.5: a running job is still `pending` to the client; the link is signed afresh on every read. */
export function presentExport(job: ExportJob, links: { publicBaseUrl: string; signer: UrlSigner; ttlSeconds: number }): ExportJobView {
  const view: ExportJobView = {
    id: job.id,
    type: job.type as ExportJobView['type'],
    status: job.status === 'completed' || job.status === 'failed' ? job.status : 'pending',
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
