import type { ExportJob } from '../../db/generated/client.js';
import { cryptographicMaterialOf } from '../../fiscal/rksv/cryptoMaterial.js';
import { depJournalOf } from '../../fiscal/rksv/depJournal.js';
import { registersCoveredBy, ZIP_ARCHIVE, type ExportDependencies, type ExportFormat } from '../exportFormat.js';
import type { ExportBuilder } from '../exportWorker.js';
import { buildRksvDepExport, type DepRegisterSource } from './buildRksvDepExport.js';

/** The DEP of every RKSV register the job covers, with the crypto material that verifies it. */
function createRksvDepBuilder({ db, sql, secrets }: ExportDependencies): ExportBuilder {
  return async (job: ExportJob, output) => {
    const registers = await db.register.findMany({
      where: registersCoveredBy(job, rksvDepFormat.regime),
      select: { id: true },
      orderBy: { createdAt: 'asc' },
    });
    const sources: DepRegisterSource[] = [];
    for (const register of registers) {
      const journal = await depJournalOf(sql, register.id);
      const cryptoMaterial = await cryptographicMaterialOf(sql, secrets, register.id);
      if (!journal || !cryptoMaterial) throw new Error(`RKSV register ${register.id} has no signature unit`);
      sources.push({
        cashRegisterId: journal.cashRegisterId,
        cryptoMaterial,
        signer: { certificate: journal.certificate, certificateChain: journal.certificateChain },
        receipts: () => journal.receiptsSignedBetween(job.fromTime, job.toTime),
      });
    }
    await buildRksvDepExport(sources, output);
  };
}

/** RKSV DEP7 (Austria): per register its Datenerfassungsprotokoll and crypto-material container. */
export const rksvDepFormat: ExportFormat = { title: 'RKSV DEP7', regime: 'RKSV', archive: ZIP_ARCHIVE, builder: createRksvDepBuilder };
