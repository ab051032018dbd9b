import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import type { CryptographicMaterialContainer } from '../../fiscal/rksv/cryptoMaterial.js';
import { depExportJson, type DepSigner } from './depExportJson.js';

/** One register's part of the export. */
export interface DepRegisterSource {
  /** The Kassen-ID: the register's folder in the ZIP. */
  cashRegisterId: string;
  cryptoMaterial: CryptographicMaterialContainer;
  /** The certificate and CA chain of the DEP's group; none for a closed system. */
  signer?: DepSigner;
  /** The compact JWS of the receipts to export, in signing order, a page at a time; read only when the ZIP gets to them. */
  receipts(): AsyncIterable<string[]>;
}

/**
 * Writes the RKSV DEP export ZIP to `output` and ends it: per register the
 * folder `<Kassen-ID>/` with `dep-export.json` and
 * `cryptographicMaterialContainer.json`, the two files the BMF verifier takes
 * (only one Kassen-ID is allowed per DEP, reference §7.1). Each DEP streams
 * from its pages into the archive, so memory stays bounded by one page.
 */
export async function buildRksvDepExport(registers: DepRegisterSource[], output: NodeJS.WritableStream): Promise<void> {
  const zip = new ZipFile();
  // yazl reports failures on the ZipFile and does not forward an input stream's; failing the output ends the pipeline with them.
  const fail = (error: Error) => (zip.outputStream as Readable).destroy(error);
  zip.on('error', fail);
  for (const register of registers) {
    zip.addReadStreamLazy(`${register.cashRegisterId}/dep-export.json`, (open) => {
      const json = Readable.from(depExportJson(register.receipts(), register.signer), { objectMode: false });
      json.on('error', fail);
      open(null, json);
    });
    zip.addBuffer(
      Buffer.from(`${JSON.stringify(register.cryptoMaterial, null, 2)}\n`, 'utf8'),
      `${register.cashRegisterId}/cryptographicMaterialContainer.json`,
    );
  }
  zip.end();
  await pipeline(zip.outputStream, output);
}
