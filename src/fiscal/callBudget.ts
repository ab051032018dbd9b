/**
 * What one call to a remote device may spend, its retries included: it ends
 * at `deadline` (epoch ms) or when `signal` aborts, whichever is first.
 */
export interface CallBudget {
  signal: AbortSignal;
  deadline: number;
}

export const budgetOf = (signal: AbortSignal, timeoutMs: number): CallBudget => ({ signal, deadline: Date.now() + timeoutMs });
