// Test-only reading and checking of a TSE TAR export (BSI TR-03153), written
// from the reference (kassensichv.md §2, §5, §9, §10) and TTC's file-name rules
// without the production encoders: its DER reader, counters and certificate
// checks are its own, and the DTBS is compared with independentDtbs' rebuild.
import 'reflect-metadata';
import { createHash, verify, X509Certificate } from 'node:crypto';
import { Readable } from 'node:stream';
import * as x509 from '@peculiar/x509';
import { extract } from 'tar-stream';
import { rebuildDtbs, spkiDerFromPoint } from '../fiscal/independentDtbs.js';

/** The regexes TTC's LogMessageArchiveImplementation and LogMessageFactory match member names with. */
export const TTC_LOG_FILE = /^(Gent_|Unixt_|Utc_).+_Sig-\d+_Log-.+log/;
export const TTC_TRANSACTION_LOG_FILE = /^(Gent_|Unixt_|Utc_).+_Sig-\d+_Log-.+(Start|Update|Finish)_Client-.+log$/;
const FILE_NAME_FIELDS = /^Unixt_(\d+)_Sig-(\d+)_Log-Tra_No-(\d+)_(Start|Update|Finish)_Client-(.+)\.log$/;
const INFO_CSV = /^"description:","[^"]*","manufacturer:","[^"]*","version:","[^"]*"\r?\n?$/;

const TRANSACTION_LOG_OID = '060904007f000703070101';
const ALGORITHM_BY_OID_TLV: Record<string, string> = {
  '060a04007f00070101040103': 'ecdsa-plain-SHA256',
  '060a04007f00070101040104': 'ecdsa-plain-SHA384',
};
const HASH_OF_ALGORITHM: Record<string, string> = { 'ecdsa-plain-SHA256': 'sha256', 'ecdsa-plain-SHA384': 'sha384' };

export interface TarFile {
  name: string;
  content: Buffer;
  mtime: Date;
  mode: number;
}

/** The archive's members in archive order (tar-stream's extract). */
export async function untar(archive: Buffer): Promise<TarFile[]> {
  const files: TarFile[] = [];
  const reader = extract();
  const done = (async () => {
    for await (const entry of reader) {
      const parts: Buffer[] = [];
      for await (const part of entry) parts.push(part as Buffer);
      files.push({ name: entry.header.name, content: Buffer.concat(parts), mtime: entry.header.mtime, mode: entry.header.mode });
    }
  })();
  Readable.from([archive]).pipe(reader);
  await done;
  return files;
}

interface Element {
  tag: number;
  /** The whole TLV, as stored. */
  raw: Buffer;
  value: Buffer;
}

/** The DER elements one after the other in `data` (definite lengths only: the software TSE writes DER). */
function elements(data: Buffer): Element[] {
  const found: Element[] = [];
  for (let offset = 0; offset < data.length; ) {
    const tag = data[offset];
    let length = data[offset + 1];
    let header = 2;
    if (length & 0x80) {
      const bytes = length & 0x7f;
      length = 0;
      for (let i = 0; i < bytes; i += 1) length = length * 256 + data[offset + 2 + i];
      header += bytes;
    }
    const end = offset + header + length;
    if (end > data.length) throw new Error('element runs past its container');
    found.push({ tag, raw: data.subarray(offset, end), value: data.subarray(offset + header, end) });
    offset = end;
  }
  return found;
}

const unsigned = (value: Buffer) => Number(BigInt(`0x${value.toString('hex') || '0'}`));

export interface ParsedTransactionLog {
  operationType: string;
  clientId: string;
  processData: string;
  processType: string;
  transactionNumber: number;
  serialNumber: string;
  algorithm: string;
  signatureCounter: number;
  logTimeSeconds: number;
  /** Everything between the outer header and signatureValue, as stored. */
  dtbs: Buffer;
  signature: Buffer;
}

/** Reference §2.1 field by field; throws on anything a transaction log may not hold. */
export function parseTransactionLog(der: Buffer): ParsedTransactionLog {
  const [outer, ...rest] = elements(der);
  if (outer.tag !== 0x30 || rest.length) throw new Error('not one SEQUENCE');
  const children = elements(outer.value);
  const tags = children.map((child) => child.tag.toString(16)).join(',');
  if (tags !== '2,6,80,81,82,83,85,4,30,2,2,4') throw new Error(`unexpected elements ${tags}`);
  const [version, type, operation, client, data, process, number, serial, algorithm, counter, time, signature] = children;
  if (version.raw.toString('hex') !== '020102') throw new Error('version is not 2');
  if (type.raw.toString('hex') !== TRANSACTION_LOG_OID) throw new Error('not a transaction log');
  const algorithmName = ALGORITHM_BY_OID_TLV[algorithm.value.toString('hex')];
  if (!algorithmName) throw new Error('unknown signature algorithm');
  const dtbsEnd = signature.raw.byteOffset - outer.value.byteOffset;
  return {
    operationType: operation.value.toString('latin1'),
    clientId: client.value.toString('latin1'),
    processData: data.value.toString('utf8'),
    processType: process.value.toString('latin1'),
    transactionNumber: unsigned(number.value),
    serialNumber: serial.value.toString('hex'),
    algorithm: algorithmName,
    signatureCounter: unsigned(counter.value),
    logTimeSeconds: unsigned(time.value),
    dtbs: outer.value.subarray(0, dtbsEnd),
    signature: signature.value,
  };
}

const pointOf = (certificate: X509Certificate): Buffer => {
  const spki = certificate.publicKey.export({ format: 'der', type: 'spki' });
  // The BIT STRING of an EC SubjectPublicKeyInfo ends the structure: its content after the unused-bits byte is the point.
  const pointLength = spki.length > 100 ? 97 : 65;
  return spki.subarray(spki.length - pointLength);
};

const hasKeyUsage = (pem: string, flag: number) => {
  const usage = new x509.X509Certificate(pem).getExtension(x509.KeyUsagesExtension);
  return usage !== null && (usage.usages & flag) !== 0;
};

export interface TseTarVerdict {
  problems: string[];
  logs: (ParsedTransactionLog & { fileName: string })[];
  /** Upper-case serial of the TSE whose certificate the TAR holds. */
  serialNumber?: string;
  rootPem?: string;
}

/**
 * Checks an export as a tax auditor's tool would: every log's signature with
 * the leaf certificate found by the logs' serial, the counters, the file
 * names, the chain and info.csv. `expectFirstCounter` pins where the signature
 * counters start (1 for a TSE's whole history).
 */
export function verifyTseTar(files: TarFile[], options: { expectFirstCounter?: number } = {}): TseTarVerdict {
  const problems: string[] = [];
  const verdict: TseTarVerdict = { problems, logs: [] };
  const names = new Set<string>();
  for (const file of files) {
    if (names.has(file.name)) problems.push(`${file.name} appears twice`);
    names.add(file.name);
  }
  const info = files.find((file) => file.name === 'info.csv');
  if (!info) problems.push('info.csv is missing');
  else if (!INFO_CSV.test(info.content.toString('utf8'))) problems.push(`info.csv is not one line of description/manufacturer/version: ${info.content}`);

  const certificates = files.filter((file) => /^[0-9A-Fa-f]{64}_X509\.(crt|der|pem|cer)$/.test(file.name));
  const leaves = certificates.filter((file) => !hasKeyUsage(file.content.toString('latin1'), x509.KeyUsageFlags.keyCertSign));
  const roots = certificates.filter((file) => hasKeyUsage(file.content.toString('latin1'), x509.KeyUsageFlags.keyCertSign));
  if (leaves.length !== 1) problems.push(`expected one TSE certificate, found ${leaves.length}`);
  if (roots.length !== 1) problems.push(`expected one CA certificate, found ${roots.length}`);
  let leafCertificate: X509Certificate | undefined;
  if (leaves.length === 1 && roots.length === 1) {
    const leaf = new X509Certificate(leaves[0].content);
    const root = new X509Certificate(roots[0].content);
    leafCertificate = leaf;
    verdict.rootPem = root.toString();
    const keyHash = createHash('sha256').update(pointOf(leaf)).digest('hex').toUpperCase();
    const fileSerial = leaves[0].name.split('_')[0];
    verdict.serialNumber = keyHash;
    if (fileSerial !== keyHash) problems.push(`${leaves[0].name} does not name SHA-256 of its key ${keyHash}`);
    const cn = /(?:^|\n)CN=([^\n]+)/.exec(leaf.subject)?.[1];
    if (cn?.toUpperCase() !== keyHash) problems.push(`the TSE certificate's CN ${cn} is not its serial`);
    if (!leaf.checkIssued(root) || !leaf.verify(root.publicKey)) problems.push('the TSE certificate is not issued by the CA certificate');
    if (!root.checkIssued(root) || !root.verify(root.publicKey) || !root.ca) problems.push('the CA certificate is not a self-signed CA');
    if (leaf.ca || !hasKeyUsage(leaves[0].content.toString('latin1'), x509.KeyUsageFlags.digitalSignature)) problems.push('the TSE certificate is not a digitalSignature end entity');
    const rootHash = createHash('sha256').update(pointOf(root)).digest('hex').toUpperCase();
    if (roots[0].name.split('_')[0] !== rootHash) problems.push(`${roots[0].name} does not name SHA-256 of its key`);
  }

  for (const file of files.filter((member) => member.name.endsWith('.log'))) {
    if (!TTC_LOG_FILE.test(file.name) || !TTC_TRANSACTION_LOG_FILE.test(file.name)) problems.push(`${file.name} does not match TTC's transaction log names`);
    let log: ParsedTransactionLog;
    try {
      log = parseTransactionLog(file.content);
    } catch (error) {
      problems.push(`${file.name}: ${(error as Error).message}`);
      continue;
    }
    verdict.logs.push({ ...log, fileName: file.name });
    const named = FILE_NAME_FIELDS.exec(file.name);
    const operation = log.operationType.replace(/Transaction$/, '');
    if (!named) problems.push(`${file.name} has no unixTime/Sig/No/operation/Client fields`);
    else if (
      Number(named[1]) !== log.logTimeSeconds ||
      Number(named[2]) !== log.signatureCounter ||
      Number(named[3]) !== log.transactionNumber ||
      named[4] !== operation ||
      named[5] !== log.clientId
    ) {
      problems.push(`${file.name} does not name its own log time, counters, operation and client`);
    }
    if (file.mtime.getTime() !== log.logTimeSeconds * 1000) problems.push(`${file.name}'s mtime is not its log time`);
    if (verdict.serialNumber && log.serialNumber.toUpperCase() !== verdict.serialNumber) problems.push(`${file.name} is of serial ${log.serialNumber}, not the certificate's`);
    if (leafCertificate) {
      const rebuilt = rebuildDtbs({ ...log, publicKey: pointOf(leafCertificate) });
      if (!rebuilt.equals(log.dtbs)) problems.push(`${file.name}'s DTBS is not the reference encoding of its fields`);
      const key = { key: spkiDerFromPoint(pointOf(leafCertificate)), format: 'der' as const, type: 'spki' as const, dsaEncoding: 'ieee-p1363' as const };
      if (!verify(HASH_OF_ALGORITHM[log.algorithm], log.dtbs, key, log.signature)) problems.push(`${file.name}: signature does not verify`);
      if (!verify(HASH_OF_ALGORITHM[log.algorithm], log.dtbs, { key: leafCertificate.publicKey, dsaEncoding: 'ieee-p1363' }, log.signature)) {
        problems.push(`${file.name}: signature does not verify with the certificate's key`);
      }
    }
  }

  const byCounter = [...verdict.logs].sort((a, b) => a.signatureCounter - b.signatureCounter);
  const first = byCounter[0]?.signatureCounter;
  if (options.expectFirstCounter !== undefined && byCounter.length && first !== options.expectFirstCounter) {
    problems.push(`signature counters start at ${first}, not ${options.expectFirstCounter}`);
  }
  let lastStart: number | undefined;
  byCounter.forEach((log, index) => {
    if (log.signatureCounter !== first + index) problems.push(`signature counter ${first + index} is missing or repeated (found ${log.signatureCounter})`);
    if (log.operationType === 'StartTransaction') {
      if (lastStart !== undefined && log.transactionNumber !== lastStart + 1) problems.push(`transaction ${log.transactionNumber} does not follow ${lastStart}`);
      lastStart = log.transactionNumber;
    } else if (log.transactionNumber !== lastStart) {
      problems.push(`${log.fileName} finishes transaction ${log.transactionNumber}, which is not the one started last`);
    }
  });
  return verdict;
}
