import type { SqlClient } from '../../db/sql.js';

/**
 * Runs inside a service's transaction right before it commits; routes use it to
 * store the idempotent response atomically with the change. Prisma services
 * pass their transaction as `sqlOf(tx)`.
 */
export type Finalize<T> = (sql: SqlClient, value: T) => Promise<void>;

/**
 * Options for transactions that may call a fiscal device: each device call is
 * bounded by DEVICE_TIMEOUT_MS, so the transaction is too; waiting for a pool
 * connection under load must not fail a request early.
 */
export const deviceTransactionOptions = (deviceTimeoutMs: number) => ({
  maxWait: 10_000,
  timeout: deviceTimeoutMs * 2 + 5_000,
});
