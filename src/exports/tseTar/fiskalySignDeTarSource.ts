import type { SqlClient } from '../../db/sql.js';
import { FiskalyApiError } from '../../fiscal/kassensichv/fiskalySignDe/client.js';
import { fiskalyClientFor } from '../../fiscal/kassensichv/fiskalySignDe/clients.js';
import { TssExportEnded, writeTssExport } from '../../fiscal/kassensichv/fiskalySignDe/tssExport.js';
import type { SecretBox } from '../../lib/secretBox.js';
import { ExportBuildError } from '../exportWorker.js';
import type { TseTarSource } from './tseTarSource.js';

const SELECT_CONNECTION = 'SELECT connection_enc FROM tse_devices WHERE id = $1';

/** Refusals a repeated attempt cannot change; anything else (5xx, lost connections, timeouts) is tried again by the export worker. */
const FINAL_FAILURES = new Set(['unauthorized', 'rejected']);

/**
 * A fiskaly TSS's export, as fiskaly builds and signs it: the service adds
 * nothing to the archive and takes nothing out. A refusal or an export fiskaly
 * ended is the job's error, with fiskaly's code or state in its details.
 */
export function fiskalySignDeTarSource(sql: SqlClient, secrets: SecretBox): TseTarSource {
  return {
    async writeTar({ tseId, key, from, to }, output) {
      const [tse] = await sql.query<{ connection_enc: string | null }>(SELECT_CONNECTION, [tseId]);
      if (!tse?.connection_enc) throw new ExportBuildError('The TSE has no fiskaly connection', { tse_id: tseId });
      try {
        await writeTssExport(fiskalyClientFor(secrets, tse.connection_enc), { key, from, to }, output);
      } catch (error) {
        if (error instanceof TssExportEnded) {
          throw new ExportBuildError(error.message, { vendor_state: error.state, vendor_exception: error.exception });
        }
        if (error instanceof FiskalyApiError && FINAL_FAILURES.has(error.kind)) {
          throw new ExportBuildError(error.message, { vendor_code: error.code, vendor_status: error.status });
        }
        throw error;
      }
    },
  };
}
