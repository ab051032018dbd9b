import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../../config.js';
import type { Prisma } from '../../../db/database.js';
import type { SecretBox } from '../../../lib/secretBox.js';
import type { FinanzOnlineAuthority } from './authority.js';
import { simulatedFinanzOnline } from './simulatedFinanzOnline.js';
import { SubmissionWorker } from './submissionWorker.js';
import { FinanzOnlineWebService } from './webService.js';

/**
 * Production without the software vendor's UID cannot log in (herstellerid is
 * part of every login): nothing is taken for registered; every submission
 * stays failed and is retried, so the merchant sees it has not reached FinanzOnline.
 */
const unconfiguredFinanzOnline: FinanzOnlineAuthority = {
  submit: () =>
    Promise.resolve({
      outcome: 'unavailable',
      code: 'AUTHORITY_NOT_CONFIGURED',
      message: 'This deployment has no FinanzOnline web service login (FINANZONLINE_VENDOR_UID is not set); the submission is kept and retried',
    }),
};

/**
 * FinanzOnline of the environment: in the sandbox the simulation, or the
 * BMF's test transmissions (art_uebermittlung T) when FINANZONLINE_URL names a
 * web service; in production the BMF's web service.
 */
function authorityOf(config: Config): FinanzOnlineAuthority {
  const sandbox = config.environment === 'sandbox';
  if (sandbox && !config.finanzOnlineUrl) return simulatedFinanzOnline;
  if (!config.finanzOnlineVendorUid) return unconfiguredFinanzOnline;
  return new FinanzOnlineWebService({
    baseUrl: config.finanzOnlineUrl,
    vendorUid: config.finanzOnlineVendorUid,
    transmission: sandbox ? 'T' : 'P',
    timeoutMs: config.finanzOnlineTimeoutMs,
  });
}

/** The FinanzOnline submission worker with the queue settings exports use. */
export function createSubmissionWorker(db: Prisma, secrets: SecretBox, config: Config, log: FastifyBaseLogger, clock: () => Date = () => new Date()): SubmissionWorker {
  const authority = authorityOf(config);
  return new SubmissionWorker({
    db,
    secrets,
    log,
    clock,
    pollMs: config.exportPollMs,
    leaseMs: config.exportLeaseMs,
    retryMs: config.finanzOnlineRetryMs,
    timeoutMs: config.finanzOnlineTimeoutMs,
    outageReportAfterMs: config.rksvOutageReportAfterMs,
    authority,
    transmission: config.environment === 'sandbox' ? 'test' : 'production',
    takenUpAfterMs: authority === simulatedFinanzOnline ? config.finanzOnlineSimulatorDelayMs : 0,
  });
}
