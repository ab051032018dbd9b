import { X509Certificate } from 'node:crypto';
import type { SqlClient } from '../../db/sql.js';
import { storedTransactionLogs } from '../../fiscal/kassensichv/storedTransactionLogs.js';
import { tseCertificatesOf } from '../../fiscal/kassensichv/tseCertificates.js';
import { tseSerialNumber, uncompressedPointOf, type TseSignatureAlgorithm } from '../../fiscal/kassensichv/tseKeys.js';
import { writeTarArchive, type TarMember } from './tarArchive.js';
import { certificateFileName, INFO_CSV_FILE_NAME, infoCsv, transactionLogFileName, type TseDescription } from './tseTarFileNames.js';
import type { TseTarRequest, TseTarSource } from './tseTarSource.js';

const SOFTWARE_TSE: TseDescription = {
  description: 'Sandbox software TSE (not certified)',
  manufacturer: 'Fiscalization Service',
  version: 'BSI TR-03151 software TSE 1.0',
};

const SELECT_TSE = 'SELECT serial_number, algorithm FROM tse_devices WHERE id = $1';

/**
 * The software TSE's export: its certificate, the root that issued it and
 * info.csv first (they head real exports too), then every transaction log in
 * signature counter order, streamed a page of transactions at a time. Every
 * member's mtime comes from the data (a log's its log time, the others the
 * certificate's notBefore), so the same range always gives the same bytes.
 */
export function softwareTseTarSource(sql: SqlClient): TseTarSource {
  return {
    async writeTar({ tseId, from, to }: TseTarRequest, output) {
      const [tse] = await sql.query<{ serial_number: string; algorithm: string }>(SELECT_TSE, [tseId]);
      if (!tse) throw new Error(`TSE ${tseId} does not exist`);
      const { certificate, rootCertificate } = await tseCertificatesOf(sql, tseId);
      const issuedAt = new Date(new X509Certificate(certificate).validFrom);
      const rootKeyHash = tseSerialNumber(uncompressedPointOf(new X509Certificate(rootCertificate).publicKey));
      const logging = { id: tseId, serialNumber: tse.serial_number, algorithm: tse.algorithm as TseSignatureAlgorithm };

      async function* members(): AsyncIterable<TarMember> {
        yield { name: certificateFileName(tse.serial_number), content: Buffer.from(certificate, 'ascii'), mtime: issuedAt };
        yield { name: certificateFileName(rootKeyHash), content: Buffer.from(rootCertificate, 'ascii'), mtime: issuedAt };
        yield { name: INFO_CSV_FILE_NAME, content: Buffer.from(infoCsv(SOFTWARE_TSE), 'utf8'), mtime: issuedAt };
        for await (const page of storedTransactionLogs(sql, logging, from, to)) {
          for (const log of page) yield { name: transactionLogFileName(log.fields), content: log.logMessage, mtime: log.fields.logTime };
        }
      }
      await writeTarArchive(members(), output);
    },
  };
}
