import type { Config } from './config.js';
import type { Database, Prisma } from './db/database.js';
import type { SqlDatabase } from './db/sql.js';
import type { IdempotencyStore } from './http/idempotency.js';
import type { ExportWorker } from './exports/exportWorker.js';
import type { TransmissionWorker } from './fiscal/rt/transmission/transmissionWorker.js';
import type { InvoiceChannels } from './einvoicing/channels/invoiceChannels.js';
import type { InvoiceTransmissionWorker } from './einvoicing/transmission/invoiceTransmissionWorker.js';
import type { SecretBox } from './lib/secretBox.js';
import type { UrlSigner } from './lib/signedUrl.js';

/** What services need from the running service; built once in app.ts. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Prisma;
  /** Plain SQL on the same database, for the hot paths. */
  sql: SqlDatabase;
  secrets: SecretBox;
  /** Which channel carries each invoice (the organization's, or the deployment's default), its opened clients kept. */
  invoiceChannels: InvoiceChannels;
  /** The service's clock; tests inject one to cross month ends (RKSV monthly receipts). */
  clock: () => Date;
  idempotency: IdempotencyStore;
  /** Absolute base for links the service hands out (receipts, downloads). */
  publicBaseUrl: string;
  /** Signs export download links. */
  urlSigner: UrlSigner;
  /** The in-process export worker, when EXPORT_WORKER=inline. */
  exportWorker?: ExportWorker;
  /** The in-process worker that transmits RT daily closures, when EXPORT_WORKER=inline. */
  transmissionWorker?: TransmissionWorker;
  /** The in-process worker that carries submitted invoices through their channel (the SdI), when EXPORT_WORKER=inline. */
  invoiceTransmissionWorker?: InvoiceTransmissionWorker;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
