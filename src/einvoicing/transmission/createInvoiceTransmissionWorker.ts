import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Prisma } from '../../db/database.js';
import type { InvoiceStateObserver } from '../invoiceStateChange.js';
import type { InvoiceChannels } from '../channels/invoiceChannels.js';
import { InvoiceTransmissionWorker } from './invoiceTransmissionWorker.js';

/**
 * The invoice transmission worker with the queue settings exports use, carrying each invoice
 * through the channel `channels` gives it; `invoiceStateObserver` follows every state change it makes.
 */
export function createInvoiceTransmissionWorker(
  db: Prisma,
  config: Config,
  log: FastifyBaseLogger,
  invoiceStateObserver: InvoiceStateObserver,
  channels: InvoiceChannels,
  clock: () => Date = () => new Date(),
): InvoiceTransmissionWorker {
  return new InvoiceTransmissionWorker({
    db,
    log,
    clock,
    invoiceStateObserver,
    pollMs: config.exportPollMs,
    leaseMs: config.exportLeaseMs,
    channels,
  });
}
