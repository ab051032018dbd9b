/**
 * The TSE TAR export (BSI TR-03153 §5, reference kassensichv.md §9): one
 * register's TSE, its transaction log messages of the transactions started in
 * [from, to) as one DER `.log` file each, its certificate chain and info.csv.
 *
 * Signature counters: the software TSE signs transaction logs only (it has no
 * system or audit logs), so an export from its first transaction holds the
 * counters 1..n without a gap. A partial range holds a gapless run m..n where
 * m is the Start counter of its first transaction: a verifier checks that the
 * counters are contiguous and increasing from the first one in the archive
 * (TTC's default), not that they start at 1 (TTC -f), and consecutive ranges
 * [a, b), [b, c) join at n + 1. A range without transactions holds the
 * certificates and info.csv alone.
 */
import { registersCoveredBy, TAR_ARCHIVE, type ExportDependencies, type ExportFormat } from '../exportFormat.js';
import { ExportBuildError, type ExportBuilder } from '../exportWorker.js';
import { fiskalySignDeTarSource } from './fiskalySignDeTarSource.js';
import { softwareTseTarSource } from './softwareTseTarSource.js';
import type { TseTarSource } from './tseTarSource.js';

/** The driver a TSE without one (provisioned before drivers existed) is on. */
const SOFTWARE_DRIVER = 'software';

/** The TSE's export source by its driver; another cloud TSE's driver is one more entry. */
const tseTarSources = (deps: ExportDependencies): Record<string, TseTarSource> => ({
  [SOFTWARE_DRIVER]: softwareTseTarSource(deps.sql),
  fiskaly_sign_de: fiskalySignDeTarSource(deps.sql, deps.secrets),
});

const SELECT_DRIVER = `SELECT driver FROM tse_devices WHERE id = $1`;

function createTseTarBuilder(deps: ExportDependencies): ExportBuilder {
  const { db, sql } = deps;
  const sources = tseTarSources(deps);
  return async (job, output) => {
    if (!job.registerId) throw new Error(`TSE TAR export ${job.id} names no register`);
    const register = await db.register.findFirst({ where: registersCoveredBy(job, tseTarFormat.regime), select: { deviceId: true } });
    if (!register?.deviceId) {
      throw new ExportBuildError('The register has no TSE to export', { register_id: job.registerId });
    }
    const [tse] = await sql.query<{ driver: string }>(SELECT_DRIVER, [register.deviceId]);
    const driver = tse?.driver ?? SOFTWARE_DRIVER;
    const source = sources[driver];
    if (!source) throw new ExportBuildError(`No TSE TAR export is available for TSEs of driver ${driver}`, { driver });
    await source.writeTar({ tseId: register.deviceId, key: job.id, from: job.fromTime, to: job.toTime }, output);
  };
}

/** TSE TAR (Germany): the TR-03153 export of one KassenSichV register's TSE. */
export const tseTarFormat: ExportFormat = { title: 'TSE TAR', regime: 'KassenSichV', archive: TAR_ARCHIVE, oneDevice: true, builder: createTseTarBuilder };
