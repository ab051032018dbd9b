import type { Tx } from '../../http/idempotency.js';

/**
 * Runs inside a service's transaction right before it commits; routes use it to
 * store the idempotent response atomically with the change.
 */
export type Finalize<T> = (tx: Tx, value: T) => Promise<void>;

export type { Tx };
