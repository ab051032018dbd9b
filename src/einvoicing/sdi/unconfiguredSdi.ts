import type { InvoiceChannel } from '../invoiceChannel.js';

/** How often production looks again whether a connection to the SdI was configured meanwhile. */
const RETRY_DELAY_MS = 30_000;

/**
 * Production for an organization that configured no channel (PUT .../invoice-channels/IT): no
 * file is ever taken for received. Every Italian invoice stays submitted, with the reason in
 * fiscal.fiscal_errors, and is retried, so nobody believes it reached the SdI.
 */
export const unconfiguredSdi: InvoiceChannel = {
  name: 'unconfigured',
  pollDelayMs: RETRY_DELAY_MS,
  send: async () => ({
    outcome: 'unreachable',
    errors: [{ code: 'SDI_NOT_CONFIGURED', message: 'No connection to the SdI is configured in this deployment; the invoice is kept and retried' }],
  }),
  nextNotification: async () => null,
};
