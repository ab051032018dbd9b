import type { Config } from '../../config.js';
import type { ChannelSettings } from './invoiceJurisdiction.js';

export const channelSettingsOf = (config: Config): ChannelSettings => ({
  environment: config.environment,
  sdiSimulatorDelayMs: config.sdiSimulatorDelayMs,
  timeoutMs: config.invoiceChannelTimeoutMs,
  pollMs: config.invoiceChannelPollMs,
});
