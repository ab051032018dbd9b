import { z } from 'zod';
import { sandboxSdi } from '../sdi/sandboxSdi.js';
import type { InvoiceChannelDriver } from './channelDriver.js';

/** The sandbox's SdI simulator chosen explicitly (it is also the sandbox's default); nothing to check, nothing secret. */
export const sandboxDriver: InvoiceChannelDriver = {
  name: 'sandbox',
  jurisdictions: ['IT'],
  environments: ['sandbox'],
  input: z.strictObject({ driver: z.literal('sandbox') }).meta({ id: 'SandboxInvoiceChannelInput' }),
  provision: async () => ({ accountKey: '', settings: {}, secrets: null }),
  open: (_config, settings) => sandboxSdi(settings.sdiSimulatorDelayMs),
};
