import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { ExportDependencies } from './exportFormat.js';
import { EXPORT_FORMATS } from './exportFormats.js';
import { ExportQueue } from './exportQueue.js';
import { ExportWorker, type ExportBuilder } from './exportWorker.js';

/** The worker with the builder of every export type. */
export function createExportWorker(deps: ExportDependencies, config: Config, log: FastifyBaseLogger): ExportWorker {
  const builders = new Map<string, ExportBuilder>(Object.entries(EXPORT_FORMATS).map(([type, format]) => [type, format.builder(deps)]));
  return new ExportWorker({
    queue: new ExportQueue(deps.db, config.exportLeaseMs),
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
