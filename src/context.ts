import type { Config } from './config.js';
import type { Database, Prisma } from './db/database.js';
import type { IdempotencyStore } from './http/idempotency.js';
import type { SecretBox } from './lib/secretBox.js';

/** What services need from the running service; built once in app.ts. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Prisma;
  secrets: SecretBox;
  idempotency: IdempotencyStore;
  /** Absolute base for links the service hands out (receipts, downloads). */
  publicBaseUrl: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
