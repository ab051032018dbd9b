import { abandonable, type SqlClient } from '../db/sql.js';
import { TIMED_OUT, within } from '../lib/timeLimit.js';

/**
 * Why a device failed. A remote device adds `unauthorized` (its credentials were
 * refused even after a fresh token) and `rate_limited` (it asked to wait longer
 * than the device timeout leaves).
 */
export type FiscalDeviceFailureReason = 'unreachable' | 'rejected' | 'timeout' | 'inactive' | 'unauthorized' | 'rate_limited';

/**
 * A fiscal device failed. Phase 1: before the device recorded the start of the
 * transaction (unreachable, refused); phase 2: after it (rejected at finish).
 * `details` carries what the device itself said (a remote TSE's error code).
 */
export class FiscalDeviceError extends Error {
  constructor(
    readonly phase: 1 | 2,
    readonly reason: FiscalDeviceFailureReason,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'FiscalDeviceError';
  }
}

/**
 * Bounds every device call: a slow device cannot hold the caller (and its
 * transaction) indefinitely. The call gets its own view of `sql` and an abort
 * signal; past the bound both are cut, the statement it may be running is
 * cancelled, and only then does the caller go on (to roll back), so nothing the
 * abandoned call does later can reach the database.
 */
export async function withDeviceTimeout<T>(
  phase: 1 | 2,
  timeoutMs: number,
  sql: SqlClient,
  call: (sql: SqlClient, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const scope = abandonable(sql);
  const controller = new AbortController();
  const pending = call(scope.sql, controller.signal);
  // A device that answers after the timeout has nobody left to tell.
  pending.catch(() => undefined);
  try {
    const outcome = await within(pending, timeoutMs);
    if (outcome !== TIMED_OUT) return outcome;
  } catch (error) {
    await scope.abandon();
    throw error;
  }
  const error = new FiscalDeviceError(phase, 'timeout', `The fiscal device did not answer within ${timeoutMs} ms`);
  controller.abort(error);
  await scope.abandon();
  throw error;
}
