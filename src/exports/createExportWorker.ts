import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Prisma } from '../db/database.js';
import { createDsfinvkBuilder } from './dsfinvkJob.js';
import { ExportQueue } from './exportQueue.js';
import { ExportWorker, type ExportBuilder } from './exportWorker.js';

/** The worker with the builders of every implemented export type. */
export function createExportWorker(db: Prisma, config: Config, log: FastifyBaseLogger): ExportWorker {
  const builders: Record<string, ExportBuilder> = { dsfinvk: createDsfinvkBuilder(db) };
  return new ExportWorker({
    queue: new ExportQueue(db, config.exportLeaseMs),
    build: (job, output) => {
      const build = builders[job.type];
      if (!build) throw new Error(`no exporter for ${job.type}`);
      return build(job, output);
    },
    log,
    pollMs: config.exportPollMs,
    leaseMs: config.exportLeaseMs,
  });
}
