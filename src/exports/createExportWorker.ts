import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { ExportDependencies } from './exportFormat.js';
import { EXPORT_FORMATS } from './exportFormats.js';
import { ExportQueue, type ExportFinished } from './exportQueue.js';
import { ExportWorker, type ExportBuilder } from './exportWorker.js';

/** The worker with the builder of every export type; `onFinished` runs in the transaction that completes or fails a job. */
export function createExportWorker(deps: ExportDependencies, config: Config, log: FastifyBaseLogger, onFinished?: ExportFinished): ExportWorker {
  const builders = new Map<string, ExportBuilder>(Object.entries(EXPORT_FORMATS).map(([type, format]) => [type, format.builder(deps)]));
  return new ExportWorker({
    queue: new ExportQueue(deps.db, config.exportLeaseMs, onFinished),
    build: (job, output) => {
      const build = builders.get(job.type);
      if (!build) throw new Error(`no exporter for ${job.type}`);
      return build(job, output);
    },
    log,
    pollMs: config.exportPollMs,
    leaseMs: config.exportLeaseMs,
  });
}
