/**
 * A fiscal device failed. Phase 1: before the device recorded the start of the
 * transaction (unreachable, refused); phase 2: after it (rejected at finish).
 */
export class FiscalDeviceError extends Error {
  constructor(
    readonly phase: 1 | 2,
    readonly reason: 'unreachable' | 'rejected' | 'timeout' | 'inactive',
    message: string,
  ) {
    super(message);
    this.name = 'FiscalDeviceError';
  }
}

/** Bounds every device call: a slow device cannot hold the caller (and its transaction) indefinitely. */
export async function withDeviceTimeout<T>(phase: 1 | 2, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new FiscalDeviceError(phase, 'timeout', `The fiscal device did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  const pending = call();
  // A device that answers after the timeout has nobody left to tell.
  pending.catch(() => undefined);
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
