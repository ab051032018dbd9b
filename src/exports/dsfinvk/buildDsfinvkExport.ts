import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import { mapOperation, type ClosingContext, type Vorgang } from './businessCases.js';
import { ClosingSums } from './closingSums.js';
import { GDPDU_DTD, GDPDU_DTD_FILE } from './gdpduDtd.js';
import { buildIndexXml, type DataSupplier } from './indexXml.js';
import { DsfinvkDataError, type DsfinvkClosingSource, type DsfinvkMasterData } from './model.js';
import { TableFiles } from './tableFiles.js';
import { TABLES } from './tables.js';
import { formatLocalTimestamp, localDateOf } from './timestamps.js';
import { vatKey } from './vatKeys.js';

export interface DsfinvkExportResult {
  /** The 20 CSV tables in index.xml order, with their data rows (header excluded). */
  files: { name: string; rows: number }[];
  totals: { closings: number; operations: number };
}

export interface DsfinvkExportOptions {
  /** index.xml <DataSupplier>. */
  supplier: DataSupplier;
}

/** The DSFinV-K version whose index.xml the tables follow (reference §4, TWEECORE 2.4). */
const TAXONOMY_VERSION = '2.4';

/** AGENTUR_ID of the merchant's own sales (no agency business is modelled). */
const OWN_COMPANY = 0;

/** Z_KASSE_ID, Z_ERSTELLUNG, Z_NR of one closing, at the start of every row. */
interface ClosingKeys {
  Z_KASSE_ID: string;
  Z_ERSTELLUNG: string;
  Z_NR: number;
}

function writeVorgang(files: TableFiles, keys: ClosingKeys, master: DsfinvkMasterData, vorgang: Vorgang): void {
  const local = (instant: Date) => formatLocalTimestamp(instant, master.timezone);
  const bon = { ...keys, BON_ID: vorgang.bonId };
  files.write('transactions.csv', {
    ...bon,
    BON_NR: vorgang.bonNr,
    BON_TYP: vorgang.bonTyp,
    BON_NAME: vorgang.bonName,
    // 1 only for a Bonstorno without counter-booking (reference §8), which a TSE register never writes.
    BON_STORNO: '0',
    BON_START: local(vorgang.start),
    BON_ENDE: local(vorgang.end),
    UMS_BRUTTO: vorgang.grossTotal,
  });
  for (const share of vorgang.vat) {
    files.write('transactions_vat.csv', { ...bon, UST_SCHLUESSEL: share.key, BON_BRUTTO: share.gross, BON_NETTO: share.net, BON_UST: share.vat });
  }
  for (const payment of vorgang.payments) {
    // Payments are in the base currency (mapOperation rejects others), so ZAHLWAEH_BETRAG stays empty.
    files.write('datapayment.csv', {
      ...bon,
      ZAHLART_TYP: payment.type,
      ZAHLART_NAME: payment.name,
      ZAHLWAEH_CODE: payment.currency,
      BASISWAEH_BETRAG: payment.amount,
    });
  }
  for (const reference of vorgang.references) {
    files.write('references.csv', {
      ...bon,
      REF_TYP: reference.type,
      REF_NAME: reference.name,
      REF_DATUM: reference.closedAt && local(reference.closedAt),
      REF_Z_KASSE_ID: reference.registerId,
      REF_Z_NR: reference.closingNumber,
      REF_BON_ID: reference.bonId,
    });
  }
  if (vorgang.tse) {
    if (!master.tse) {
      throw new DsfinvkDataError(`Operation ${vorgang.bonId} was signed but closing ${keys.Z_NR} of register ${keys.Z_KASSE_ID} has no TSE`, {
        operation_id: vorgang.bonId,
        register_id: keys.Z_KASSE_ID,
        closing_number: keys.Z_NR,
      });
    }
    const tse = vorgang.tse;
    files.write('transactions_tse.csv', {
      ...bon,
      TSE_ID: master.tse.id,
      TSE_TANR: tse.transactionNumber,
      TSE_TA_START: tse.startTime,
      TSE_TA_ENDE: tse.endTime,
      TSE_TA_VORGANGSART: tse.processType,
      TSE_TA_SIGZ: tse.finishSignatureCounter,
      TSE_TA_SIG: tse.signature,
      TSE_VORGANGSDATEN: tse.processData,
    });
  }
  for (const line of vorgang.lines) {
    files.write('lines.csv', {
      ...bon,
      POS_ZEILE: line.posZeile,
      GUTSCHEIN_NR: line.voucherId,
      ARTIKELTEXT: line.text,
      GV_TYP: line.gvTyp,
      P_STORNO: '0',
      AGENTUR_ID: OWN_COMPANY,
      ART_NR: line.articleNumber,
      MENGE: line.quantity,
      STK_BR: line.unitGross,
    });
    for (const share of line.vat) {
      files.write('lines_vat.csv', {
        ...bon,
        POS_ZEILE: line.posZeile,
        UST_SCHLUESSEL: share.key,
        POS_BRUTTO: share.gross,
        POS_NETTO: share.net,
        POS_UST: share.vat,
      });
    }
  }
}

/** Stammdaten and Kassenabschluss rows of one closing, written once its operations are summed. */
function writeClosing(files: TableFiles, keys: ClosingKeys, master: DsfinvkMasterData, sums: ClosingSums): void {
  const { company, location, register } = master;
  files.write('cashpointclosing.csv', {
    ...keys,
    // Only a booking day other than the closing's own date is written (reference §4.2).
    Z_BUCHUNGSTAG: master.businessDay === localDateOf(keys.Z_ERSTELLUNG) ? null : master.businessDay,
    TAXONOMIE_VERSION: TAXONOMY_VERSION,
    Z_START_ID: sums.firstBonId,
    Z_ENDE_ID: sums.lastBonId,
    NAME: company.legalName,
    STRASSE: company.street,
    PLZ: company.postalCode,
    ORT: company.city,
    LAND: company.countryCode,
    STNR: company.taxNumber,
    USTID: company.vatId,
    Z_SE_ZAHLUNGEN: sums.allPayments,
    Z_SE_BARZAHLUNGEN: sums.cashPayments,
  });
  files.write('location.csv', {
    ...keys,
    LOC_NAME: location.name,
    LOC_STRASSE: location.street,
    LOC_PLZ: location.postalCode,
    LOC_ORT: location.city,
    LOC_LAND: location.countryCode,
    LOC_USTID: company.vatId,
  });
  files.write('cashregister.csv', {
    ...keys,
    KASSE_BRAND: register.brand,
    KASSE_MODELL: register.model,
    KASSE_SERIENNR: register.clientId,
    KASSE_SW_BRAND: register.software,
    KASSE_SW_VERSION: register.softwareVersion,
    KASSE_BASISWAEH_CODE: register.baseCurrency,
    KEINE_UST_ZUORDNUNG: '0',
  });
  if (master.tse) {
    // A software TSE has no certificate, so TSE_ZERTIFIKAT_I/II stay empty.
    files.write('tse.csv', {
      ...keys,
      TSE_ID: master.tse.id,
      TSE_SERIAL: master.tse.serialNumber,
      TSE_SIG_ALGO: master.tse.signatureAlgorithm,
      TSE_ZEITFORMAT: master.tse.timeFormat,
      TSE_PD_ENCODING: master.tse.processDataEncoding,
      TSE_PUBLIC_KEY: master.tse.publicKey,
    });
  }
  for (const key of [...sums.vatKeys].sort((a, b) => a - b)) {
    const entry = vatKey(key);
    files.write('vat.csv', { ...keys, UST_SCHLUESSEL: key, UST_SATZ: entry.percent, UST_BESCHR: entry.description });
  }
  for (const sum of sums.businessCases.values()) {
    files.write('businesscases.csv', {
      ...keys,
      GV_TYP: sum.gvTyp,
      AGENTUR_ID: OWN_COMPANY,
      UST_SCHLUESSEL: sum.key,
      Z_UMS_BRUTTO: sum.gross,
      Z_UMS_NETTO: sum.net,
      Z_UST: sum.vat,
    });
  }
  for (const sum of sums.payments.values()) {
    files.write('payment.csv', { ...keys, ZAHLART_TYP: sum.type, ZAHLART_NAME: sum.name, Z_ZAHLART_BETRAG: sum.amount });
  }
  for (const [currency, amount] of sums.cashPerCurrency) {
    files.write('cash_per_currency.csv', { ...keys, ZAHLART_WAEH: currency, ZAHLART_BETRAG_WAEH: amount });
  }
}

async function writeZip(
  files: { table: { file: string }; path: string }[],
  supplier: DataSupplier,
  output: NodeJS.WritableStream,
): Promise<void> {
  const zip = new ZipFile();
  // yazl reports a failing input file on the ZipFile; failing the output stream ends the pipeline with it.
  zip.on('error', (error: Error) => (zip.outputStream as Readable).destroy(error));
  zip.addBuffer(Buffer.from(buildIndexXml(TABLES, supplier), 'utf8'), 'index.xml');
  zip.addBuffer(Buffer.from(GDPDU_DTD, 'utf8'), GDPDU_DTD_FILE);
  for (const file of files) zip.addFile(file.path, file.table.file);
  zip.end();
  await pipeline(zip.outputStream, output);
}

/**
 * Writes one DSFinV-K ZIP (index.xml, the GDPdU DTD and all 20 CSV tables,
 * header only when empty) for any number of closings of any registers to
 * `output`, and ends `output`.
 *
 * Memory stays bounded by the size of one closing's sums: a single pass over
 * each closing's operations streams every row to one temporary file per table
 * (removed afterwards, also on failure); the Stammdaten and Kassenabschluss
 * rows of a closing follow its pass; the files are then zipped from disk.
 * Throws DsfinvkDataError for operations the format cannot represent.
 */
export async function buildDsfinvkExport(
  closings: AsyncIterable<DsfinvkClosingSource>,
  output: NodeJS.WritableStream,
  options: DsfinvkExportOptions,
): Promise<DsfinvkExportResult> {
  const files = await TableFiles.create();
  try {
    const totals = { closings: 0, operations: 0 };
    for await (const source of closings) {
      const { master } = source;
      const keys: ClosingKeys = {
        Z_KASSE_ID: master.register.id,
        Z_ERSTELLUNG: formatLocalTimestamp(master.closedAt, master.timezone),
        Z_NR: master.closingNumber,
      };
      const context: ClosingContext = {
        registerId: master.register.id,
        closingNumber: master.closingNumber,
        closedAt: master.closedAt,
        baseCurrency: master.register.baseCurrency,
        openingAmount: master.openingAmount,
      };
      const sums = new ClosingSums();
      for await (const operation of source.operations()) {
        const vorgang = mapOperation(operation, context);
        if (!vorgang) continue;
        writeVorgang(files, keys, master, vorgang);
        sums.add(vorgang);
        totals.operations += 1;
        await files.flush();
      }
      writeClosing(files, keys, master, sums);
      await files.flush();
      totals.closings += 1;
    }
    const written = await files.close();
    await writeZip(written, options.supplier, output);
    return { files: written.map((file) => ({ name: file.table.file, rows: file.rows })), totals };
  } finally {
    await files.dispose();
  }
}
