import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  encodeDataToBeSigned,
  signTransactionLog,
  transactionLogMessage,
  verifyTransactionLog,
  type TransactionLogFields,
} from '../../src/fiscal/kassensichv/transactionLog.js';
import { generateTseKeyMaterial, type TseSignatureAlgorithm } from '../../src/fiscal/kassensichv/tseKeys.js';
import { opensslVerifies, rebuildDtbs, tlv, verifiesPlainSignature } from './independentDtbs.js';

const workDir = mkdtempSync(join(tmpdir(), 'tse-openssl-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function openssl(args: string[]): { status: number | null; stdout: string } {
  const result = spawnSync('openssl', args, { cwd: workDir, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout + result.stderr };
}

interface Asn1Line {
  offset: number;
  depth: number;
  headerLength: number;
  length: number;
  description: string;
}

function opensslAsn1Parse(der: Buffer): Asn1Line[] {
  writeFileSync(join(workDir, 'message.log'), der);
  const result = openssl(['asn1parse', '-inform', 'DER', '-in', 'message.log']);
  expect(result.status).toBe(0);
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => {
      const match = /^\s*(\d+):d=(\d+)\s+hl=(\d+)\s+l=\s*(\d+)\s+(.*)$/.exec(line);
      if (!match) throw new Error(`unexpected asn1parse line: ${line}`);
      return {
        offset: Number(match[1]),
        depth: Number(match[2]),
        headerLength: Number(match[3]),
        length: Number(match[4]),
        description: match[5].replace(/\s+/g, ' ').trim(),
      };
    });
}

function finishFields(
  key: { serialNumber: string; algorithm: TseSignatureAlgorithm },
  overrides: Partial<TransactionLogFields> = {},
): TransactionLogFields {
  return {
    operationType: 'FinishTransaction',
    clientId: 'Kasse 1',
    processData: 'Beleg^10.00_5.00_0.00_0.00_0.00^10.00:Bar_5.00:Unbar',
    processType: 'Kassenbeleg-V1',
    transactionNumber: 42,
    serialNumber: key.serialNumber,
    algorithm: key.algorithm,
    signatureCounter: 128,
    logTime: new Date('2026-11-22T20:21:20.123Z'),
    ...overrides,
  };
}

function independentDtbs(fields: TransactionLogFields, publicKey: Buffer): Buffer {
  return rebuildDtbs({ ...fields, publicKey, logTimeSeconds: Math.floor(fields.logTime.getTime() / 1000) });
}

describe.each([
  { algorithm: 'ecdsa-plain-SHA256' as const, signatureLength: 64 },
  { algorithm: 'ecdsa-plain-SHA384' as const, signatureLength: 96 },
])('signTransactionLog with $algorithm', ({ algorithm, signatureLength }) => {
  const key = generateTseKeyMaterial(algorithm);
  // processData is UTF-8 text and may hold ';' and non-ASCII (Bestellung-V1 style).
  const fields = finishFields(key, { processData: '2;"Döner";8.50' });
  const signed = signTransactionLog(fields, key.privateKeyPem);
  const dtbs = independentDtbs(fields, key.publicKey);

  it('produces a plain r||s signature that node:crypto verifies over an independently rebuilt DTBS', () => {
    expect(signed.signature).toHaveLength(signatureLength);
    expect(encodeDataToBeSigned(fields).equals(dtbs)).toBe(true);
    expect(verifiesPlainSignature(dtbs, signed.signature, key.publicKey, algorithm)).toBe(true);
    expect(verifyTransactionLog(fields, signed.signature, key.publicKey)).toBe(true);
  });

  it('verifies with the openssl command line', () => {
    expect(opensslVerifies(dtbs, signed.signature, key.publicKey, algorithm)).toBe(true);
    const tampered = Buffer.from(dtbs);
    tampered[tampered.length - 1] ^= 1;
    expect(opensslVerifies(tampered, signed.signature, key.publicKey, algorithm)).toBe(false);
  });

  it('emits the log message as SEQUENCE(DTBS || OCTET STRING signature), parseable by openssl', () => {
    expect(signed.logMessage.equals(tlv(0x30, Buffer.concat([dtbs, tlv(0x04, signed.signature)])))).toBe(true);

    const lines = opensslAsn1Parse(signed.logMessage);
    const outer = lines[0];
    expect(outer).toMatchObject({ offset: 0, depth: 0, description: 'cons: SEQUENCE' });
    expect(outer.headerLength + outer.length).toBe(signed.logMessage.length);
    expect(lines.filter((line) => line.depth === 1).map((line) => line.description)).toEqual([
      'prim: INTEGER :02',
      'prim: OBJECT :0.4.0.127.0.7.3.7.1.1',
      'prim: cont [ 0 ]',
      'prim: cont [ 1 ]',
      'prim: cont [ 2 ]',
      'prim: cont [ 3 ]',
      'prim: cont [ 5 ]',
      expect.stringMatching(/^prim: OCTET STRING \[HEX DUMP\]:[0-9A-F]{64}$/),
      'cons: SEQUENCE',
      'prim: INTEGER :80',
      expect.stringMatching(/^prim: INTEGER :[0-9A-F]+$/),
      expect.stringMatching(/^prim: OCTET STRING \[HEX DUMP\]:[0-9A-F]+$/),
    ]);

    // Reference §10.1/§10.2: the DTBS is everything between the outer header and the last element.
    const signatureElement = lines.filter((line) => line.depth === 1).at(-1)!;
    const storedDtbs = signed.logMessage.subarray(outer.headerLength, signatureElement.offset);
    expect(storedDtbs.equals(dtbs)).toBe(true);
    expect(opensslVerifies(storedDtbs, signed.signature, key.publicKey, algorithm)).toBe(true);
  });

  it('fails verification when any signed field changes', () => {
    const tamperings: Partial<TransactionLogFields>[] = [
      { operationType: 'UpdateTransaction' },
      { clientId: 'Kasse 2' },
      { processData: '2;"Döner";8.51' },
      { processType: 'Bestellung-V1' },
      { transactionNumber: 43 },
      { signatureCounter: 129 },
      { logTime: new Date('2026-11-22T20:21:21.123Z') },
    ];
    for (const tampering of tamperings) {
      expect(verifyTransactionLog({ ...fields, ...tampering }, signed.signature, key.publicKey)).toBe(false);
    }
    const otherKey = generateTseKeyMaterial(algorithm);
    expect(verifyTransactionLog(fields, signed.signature, otherKey.publicKey)).toBe(false);
    expect(
      verifyTransactionLog({ ...fields, serialNumber: otherKey.serialNumber }, signed.signature, otherKey.publicKey),
    ).toBe(false);
  });

  it('signs the log time in whole seconds, so milliseconds do not affect verification', () => {
    const sameSecond = new Date('2026-11-22T20:21:20.999Z');
    expect(verifyTransactionLog({ ...fields, logTime: sameSecond }, signed.signature, key.publicKey)).toBe(true);
  });

  it('rebuilds the signed log message from the stored fields and signature, byte for byte (the TAR export)', () => {
    // As the database gives it back: the log time at millisecond precision, the signature from base64.
    const stored = { ...fields, logTime: new Date(Math.floor(fields.logTime.getTime() / 1000) * 1000) };
    const rebuilt = transactionLogMessage(stored, Buffer.from(signed.signature.toString('base64'), 'base64'));
    expect(rebuilt.equals(signed.logMessage)).toBe(true);
    expect(rebuilt.equals(tlv(0x30, Buffer.concat([dtbs, tlv(0x04, signed.signature)])))).toBe(true);
    const start = { ...fields, operationType: 'StartTransaction' as const, processType: '', processData: '', signatureCounter: 127 };
    const startLog = signTransactionLog(start, key.privateKeyPem);
    expect(transactionLogMessage(start, startLog.signature).equals(startLog.logMessage)).toBe(true);
    // An empty processData and processType are present as empty elements, as fiskaly's Start logs carry them.
    expect(startLog.logMessage.includes(Buffer.from('82008300', 'hex'))).toBe(true);
    expect(verifiesPlainSignature(independentDtbs(start, key.publicKey), startLog.signature, key.publicKey, algorithm)).toBe(true);
  });
});

describe('encodeDataToBeSigned', () => {
  it('reproduces the deterministic parts of the real fiskaly FinishTransaction (reference §2.2)', () => {
    const serialNumber = 'e11e1a15' + '00'.repeat(26) + '4e52'; // only its first and last bytes are published
    const fields: TransactionLogFields = {
      operationType: 'FinishTransaction',
      clientId: '1063641',
      processData: 'Beleg^62.00_0.00_0.00_0.00_0.00^66.30:Bar',
      processType: 'Kassenbeleg-V1',
      transactionNumber: 1,
      serialNumber,
      algorithm: 'ecdsa-plain-SHA256',
      signatureCounter: 16,
      logTime: new Date(1627475939 * 1000),
    };
    const ascii = (text: string) => Buffer.from(text, 'ascii').toString('hex');
    const upperPartBeforeSerial =
      '020102' +
      '060904007f000703070101' +
      '8011' + ascii('FinishTransaction') +
      '8107' + ascii('1063641') +
      '8229' + ascii('Beleg^62.00_0.00_0.00_0.00_0.00^66.30:Bar') +
      '830e' + ascii('Kassenbeleg-V1') +
      '850101';
    const afterSerial =
      '300c060a04007f00070101040103' + // ecdsa-plain-SHA256
      '020110' + // signatureCounter 16
      '020461014fe3'; // logTime 1627475939 = 0x61014FE3

    const dtbs = encodeDataToBeSigned(fields).toString('hex');
    expect(dtbs).toBe(upperPartBeforeSerial + '0420' + serialNumber + afterSerial);

    // The real message is SEQUENCE 30 81 E3: 227 content bytes with the 64-byte signature.
    const key = generateTseKeyMaterial();
    const { logMessage } = signTransactionLog({ ...fields, serialNumber: key.serialNumber }, key.privateKeyPem);
    expect(logMessage.subarray(0, 3).toString('hex')).toBe('3081e3');
    expect(logMessage).toHaveLength(3 + 0xe3);
  });

  it('rebuilds the published berohndo DTBS test vector (reference §8) and verifies its real signature', () => {
    const publicKey = Buffer.from(
      'BGFKQP7EENf3s5hTDXvlh+xyJ1Q9BNIa9LyYbYK+pTAKAGQ2fmI40p5QOrpHpvb+UuOrNQJdhzggHNfyyyDyf/g=',
      'base64',
    );
    const signature = Buffer.from(
      'TGnWiq3ZW7gi4Vs+DxLGsJZj9v271dHmhQAcb057F3oWkdKJ61UW2LLVTZQhW673yLa53Mm6oPeMU1Ns3ZOH7w==',
      'base64',
    );
    const fields: TransactionLogFields = {
      operationType: 'FinishTransaction',
      clientId: 'ERS 8cb8e2de-4052-481b-945b-118022951944',
      processData: 'Beleg^21.42_0.00_0.00_0.00_0.00^21.42:Unbar',
      processType: 'Kassenbeleg-V1',
      transactionNumber: 1,
      serialNumber: createHash('sha256').update(publicKey).digest('hex'),
      algorithm: 'ecdsa-plain-SHA256',
      signatureCounter: 31,
      logTime: new Date('2021-08-23T14:36:33.000Z'),
    };
    const dtbs = encodeDataToBeSigned(fields);
    expect(dtbs).toHaveLength(196);
    expect(createHash('sha256').update(dtbs).digest('hex')).toBe(
      'a01feb0c4e0f11126668f599ee2929330833e898d8a9d8e649158819a3e1db99',
    );
    expect(verifyTransactionLog(fields, signature, publicKey)).toBe(true);
    expect(opensslVerifies(dtbs, signature, publicKey, 'ecdsa-plain-SHA256')).toBe(true);
  });

  it('encodes StartTransaction with empty processData like fiskaly (82 00)', () => {
    const key = generateTseKeyMaterial();
    const dtbs = encodeDataToBeSigned(
      finishFields(key, { operationType: 'StartTransaction', processData: '', processType: ' ' }),
    );
    expect(dtbs.toString('hex')).toContain('8200' + '8301' + '20');
  });

  it('rejects clientId and processType outside the PrintableString charset', () => {
    const key = generateTseKeyMaterial();
    for (const clientId of ['Kasse_1', 'Kässe', 'Kasse;1', 'Kasse^1', 'Kasse@1']) {
      expect(() => encodeDataToBeSigned(finishFields(key, { clientId }))).toThrow(/clientId/);
      expect(() => signTransactionLog(finishFields(key, { clientId }), key.privateKeyPem)).toThrow(TypeError);
    }
    expect(() => encodeDataToBeSigned(finishFields(key, { processType: 'Kassenbeleg_V1' }))).toThrow(/processType/);
    expect(() => encodeDataToBeSigned(finishFields(key, { clientId: "A-Z a-z 0-9 '()+,-./:=?" }))).not.toThrow();
  });

  it('rejects counters and times that cannot be encoded', () => {
    const key = generateTseKeyMaterial();
    expect(() => encodeDataToBeSigned(finishFields(key, { transactionNumber: -1 }))).toThrow(/transactionNumber/);
    expect(() => encodeDataToBeSigned(finishFields(key, { signatureCounter: 1.5 }))).toThrow(/signatureCounter/);
    expect(() => encodeDataToBeSigned(finishFields(key, { logTime: new Date(NaN) }))).toThrow(/logTime/);
    expect(() => encodeDataToBeSigned(finishFields(key, { serialNumber: 'abc' }))).toThrow(/serialNumber/);
  });
});

describe('signTransactionLog key handling', () => {
  it('refuses a key whose curve does not match the algorithm', () => {
    const p384 = generateTseKeyMaterial('ecdsa-plain-SHA384');
    const fields = finishFields({ serialNumber: p384.serialNumber, algorithm: 'ecdsa-plain-SHA256' });
    expect(() => signTransactionLog(fields, p384.privateKeyPem)).toThrow(/curve/);
  });
});
