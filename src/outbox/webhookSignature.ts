import { createHmac } from 'node:crypto';
import { randomBase62 } from '../lib/ids.js';

export const SIGNATURE_HEADER = 'Service-Signature';

/** An endpoint's signing secret, shown once when the endpoint is created (about 190 random bits). */
export const newEndpointSecret = (): string => `whsec_${randomBase62(32)}`;

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the
 * secret exactly as shown to the merchant (Stripe's scheme): the receiver
 * recomputes it over the raw body and rejects stale timestamps.
 */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}
