/** What `within` answers when the time ran out first. */
export const TIMED_OUT = Symbol('timed out');

/**
 * What `work` settles with, or TIMED_OUT once `timeoutMs` pass first. The timer is cleared
 * either way; `work` itself goes on, and the caller decides whether to tell it to stop.
 */
export async function within<T>(work: Promise<T>, timeoutMs: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
