import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Prisma } from '../../db/database.js';
import type { InvoiceStateObserver } from '../invoiceStateChange.js';
import { jurisdictionOf } from '../jurisdictions/index.js';
import { channelSettingsOf } from '../jurisdictions/channelSettings.js';
import { InvoiceTransmissionWorker } from './invoiceTransmissionWorker.js';

/**
 * The invoice transmission worker with the queue settings exports use, and each jurisdiction's
 * channel for this environment; `invoiceStateObserver` follows every state change it makes.
 */
export function createInvoiceTransmissionWorker(
  db: Prisma,
  config: Config,
  log: FastifyBaseLogger,
  invoiceStateObserver: InvoiceStateObserver,
  clock: () => Date = () => new Date(),
): InvoiceTransmissionWorker {
  const settings = channelSettingsOf(config);
  return new InvoiceTransmissionWorker({
    db,
    log,
    clock,
    invoiceStateObserver,
    pollMs: config.exportPollMs,
    leaseMs: config.exportLeaseMs,
    channelOf: (jurisdiction) => jurisdictionOf(jurisdiction).channel(settings),
  });
}
