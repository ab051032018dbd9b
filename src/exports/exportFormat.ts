import type { ExportJob, Prisma as PrismaNs } from '../db/generated/client.js';
import type { Prisma } from '../db/database.js';
import type { SqlClient } from '../db/sql.js';
import type { Regime } from '../fiscal/fiscalDevice.js';
import type { SecretBox } from '../lib/secretBox.js';
import type { ExportBuilder } from './exportWorker.js';

/** What builders read: the database (through Prisma and plain SQL) and the secrets that open sealed device keys. */
export interface ExportDependencies {
  db: Prisma;
  sql: SqlClient;
  secrets: SecretBox;
}

/** The kind of file a format's archive is: what the download is served as and named. */
export interface ExportArchive {
  mediaType: 'application/zip' | 'application/x-tar';
  extension: 'zip' | 'tar';
}

export const ZIP_ARCHIVE: ExportArchive = { mediaType: 'application/zip', extension: 'zip' };
export const TAR_ARCHIVE: ExportArchive = { mediaType: 'application/x-tar', extension: 'tar' };

/** One implemented export type: the audit format of one regime, and how its archive is built. */
export interface ExportFormat {
  /** The format's name in messages. */
  title: string;
  /** The regime whose registers it covers. */
  regime: Regime;
  archive: ExportArchive;
  /**
   * The export of one register's fiscal device (a TSE's own export), not of a merchant's
   * registers: the request names the register, by register_id or by its device serial.
   */
  oneDevice?: true;
  builder(deps: ExportDependencies): ExportBuilder;
}

/** Registers an export covers: those that ever signed under its regime. */
const EXPORTED_FISCALIZATION_STATUSES = ['fiscalized', 'decommissioned'];

/** Whether an export of `regime` covers the register. */
export const exportCovers = (regime: Regime, register: { regime: string | null; fiscalizationStatus: string }): boolean =>
  register.regime === regime && EXPORTED_FISCALIZATION_STATUSES.includes(register.fiscalizationStatus);

/** The registers a job covers: the one it names, or every register of its merchant that ever signed under `regime`. */
export const registersCoveredBy = (job: ExportJob, regime: Regime): PrismaNs.RegisterWhereInput => ({
  merchantId: job.merchantId,
  regime,
  fiscalizationStatus: { in: EXPORTED_FISCALIZATION_STATUSES },
  ...(job.registerId ? { id: job.registerId } : {}),
});
