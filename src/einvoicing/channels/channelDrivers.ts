import { smtpDriver } from '../email/smtpDriver.js';
import { acubeDriver } from '../sdi/acube/acubeDriver.js';
import { sdiCoopDriver } from '../sdi/sdiCoop/sdiCoopDriver.js';
import type { InvoiceChannelDriver } from './channelDriver.js';
import { sandboxDriver } from './sandboxDriver.js';

/** Every driver an organization may configure, by name; another intermediary is one more entry. */
export const INVOICE_CHANNEL_DRIVERS: readonly InvoiceChannelDriver[] = [sandboxDriver, acubeDriver, sdiCoopDriver, smtpDriver];

export function channelDriverNamed(name: string): InvoiceChannelDriver {
  const driver = INVOICE_CHANNEL_DRIVERS.find((candidate) => candidate.name === name);
  if (!driver) throw new Error(`No invoice channel driver ${name} is built`);
  return driver;
}
