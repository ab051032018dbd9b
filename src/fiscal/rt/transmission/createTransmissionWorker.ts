import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../../config.js';
import type { Prisma } from '../../../db/database.js';
import { sandboxAuthority, unconfiguredAuthority } from './sandboxAuthority.js';
import { TransmissionWorker, type TransmissionWorkerOptions } from './transmissionWorker.js';

/** The COR10 transmission worker with the queue settings exports use; the sandbox transmits to its stand-in authority. */
export const createTransmissionWorker = (
  db: Prisma,
  config: Config,
  log: FastifyBaseLogger,
  clock: () => Date = () => new Date(),
  onAnswered?: TransmissionWorkerOptions['onAnswered'],
): TransmissionWorker =>
  new TransmissionWorker({
    db,
    log,
    clock,
    pollMs: config.exportPollMs,
    leaseMs: config.exportLeaseMs,
    retryMs: config.rtTransmissionRetryMs,
    authority: config.environment === 'sandbox' ? sandboxAuthority : unconfiguredAuthority,
    onAnswered,
  });
