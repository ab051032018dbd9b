import { Agent, request, type Dispatcher } from 'undici';
import { checkLiteralDestination, publicOnlyLookup, type DestinationPolicy } from './destinationPolicy.js';

/** How one attempt ended: a 2xx answer delivers the event; anything else is retried. */
export type AttemptOutcome = { delivered: true; statusCode: number } | { delivered: false; statusCode: number | null; error: string };

/** A receiver's answer body is read up to this much (then dropped): only its status counts. */
const ANSWER_LIMIT_BYTES = 64 * 1024;

/** The connections of webhook deliveries: under `public_only`, names resolve to public addresses only. */
export function webhookDispatcher(policy: DestinationPolicy, timeoutMs: number): Agent {
  return new Agent({
    connect: { timeout: timeoutMs, ...(policy === 'public_only' ? { lookup: publicOnlyLookup } : {}) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Bound on the whole attempt: connecting, sending and the answer (DESIGN: 10 s). */
  timeoutMs: number;
  policy: DestinationPolicy;
  dispatcher: Dispatcher;
}

/** POSTs one delivery attempt; never throws: a refusal, timeout or broken connection is an outcome. */
export async function postWebhook(attempt: WebhookRequest): Promise<AttemptOutcome> {
  try {
    checkLiteralDestination(new URL(attempt.url), attempt.policy);
    const response = await request(attempt.url, {
      method: 'POST',
      headers: attempt.headers,
      body: attempt.body,
      dispatcher: attempt.dispatcher,
      signal: AbortSignal.timeout(attempt.timeoutMs),
    });
    await response.body.dump({ limit: ANSWER_LIMIT_BYTES });
    const { statusCode } = response;
    if (statusCode >= 200 && statusCode < 300) return { delivered: true, statusCode };
    return { delivered: false, statusCode, error: `The endpoint answered HTTP ${statusCode}` };
  } catch (error) {
    return { delivered: false, statusCode: null, error: describeFailure(error, attempt.timeoutMs) };
  }
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError' || /Timeout/.test(error.name))) {
    return `The endpoint did not answer within ${timeoutMs} ms`;
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const message = error instanceof Error ? `${error.message}${cause ? `: ${cause.message}` : ''}` : String(error);
  return `The endpoint could not be reached: ${message}`.slice(0, 500);
}
