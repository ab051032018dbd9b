import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildReceiptQrData,
  formatTseTimestamp,
  parseReceiptQrData,
  type ReceiptQrInput,
} from '../../src/fiscal/kassensichv/receiptQr.js';
import { signTransactionLog, type TransactionLogFields } from '../../src/fiscal/kassensichv/transactionLog.js';
import { generateTseKeyMaterial, type TseSignatureAlgorithm } from '../../src/fiscal/kassensichv/tseKeys.js';
import { verifiesQrData } from './independentDtbs.js';

const BEROHNDO_QR =
  'V0;ERS 8cb8e2de-4052-481b-945b-118022951944;Kassenbeleg-V1;Beleg^21.42_0.00_0.00_0.00_0.00^21.42:Unbar;1;31;' +
  '2021-08-23T14:36:27.000Z;2021-08-23T14:36:33.000Z;ecdsa-plain-SHA256;unixTime;' +
  'TGnWiq3ZW7gi4Vs+DxLGsJZj9v271dHmhQAcb057F3oWkdKJ61UW2LLVTZQhW673yLa53Mm6oPeMU1Ns3ZOH7w==;' +
  'BGFKQP7EENf3s5hTDXvlh+xyJ1Q9BNIa9LyYbYK+pTAKAGQ2fmI40p5QOrpHpvb+UuOrNQJdhzggHNfyyyDyf/g=';

function signedFinishQr(algorithm: TseSignatureAlgorithm, processData: string) {
  const key = generateTseKeyMaterial(algorithm);
  const fields: TransactionLogFields = {
    operationType: 'FinishTransaction',
    clientId: 'Kasse 1',
    processData,
    processType: 'Kassenbeleg-V1',
    transactionNumber: 42,
    serialNumber: key.serialNumber,
    algorithm,
    signatureCounter: 128,
    logTime: new Date('2026-11-22T20:21:20.123Z'),
  };
  const { signature } = signTransactionLog(fields, key.privateKeyPem);
  const input: ReceiptQrInput = {
    clientId: fields.clientId,
    processType: fields.processType,
    processData: fields.processData,
    transactionNumber: fields.transactionNumber,
    signatureCounter: fields.signatureCounter,
    startTime: new Date('2026-11-22T20:21:19.456Z'),
    logTime: fields.logTime,
    algorithm,
    timeFormat: 'unixTime',
    signature,
    publicKey: key.publicKey,
  };
  return { input, qr: buildReceiptQrData(input) };
}

describe.each(['ecdsa-plain-SHA256', 'ecdsa-plain-SHA384'] as const)('receipt QR with %s', (algorithm) => {
  const { input, qr } = signedFinishQr(algorithm, 'Beleg^10.00_5.00_0.00_0.00_0.00^10.00:Bar_5.00:Unbar');

  it('has the 12 DSFinV-K V0 fields in order', () => {
    expect(qr.split(';')).toEqual([
      'V0',
      'Kasse 1',
      'Kassenbeleg-V1',
      'Beleg^10.00_5.00_0.00_0.00_0.00^10.00:Bar_5.00:Unbar',
      '42',
      '128',
      '2026-11-22T20:21:19.456Z',
      '2026-11-22T20:21:20.123Z',
      algorithm,
      'unixTime',
      input.signature.toString('base64'),
      input.publicKey.toString('base64'),
    ]);
  });

  it('round-trips through parseReceiptQrData', () => {
    expect(parseReceiptQrData(qr)).toEqual(input);
  });

  it('verifies from the QR string alone (reference §10.3)', () => {
    expect(verifiesQrData(qr)).toBe(true);
    expect(verifiesQrData(qr.replace('10.00:Bar', '10.01:Bar'))).toBe(false);
    expect(verifiesQrData(qr.replace(';128;', ';129;'))).toBe(false);
  });
});

describe('buildReceiptQrData / parseReceiptQrData', () => {
  it('keeps a processData that contains ";" intact (Bestellung-V1)', () => {
    const { input, qr } = signedFinishQr('ecdsa-plain-SHA256', '2;"Döner";8.50');
    expect(parseReceiptQrData(qr)).toEqual(input);
    expect(verifiesQrData(qr)).toBe(true);
  });

  it('parses, rebuilds character for character and verifies the published berohndo QR (reference §8)', () => {
    const parsed = parseReceiptQrData(BEROHNDO_QR);
    expect(parsed).toMatchObject({
      clientId: 'ERS 8cb8e2de-4052-481b-945b-118022951944',
      transactionNumber: 1,
      signatureCounter: 31,
      algorithm: 'ecdsa-plain-SHA256',
    });
    expect(createHash('sha256').update(parsed.publicKey).digest()).toHaveLength(32);
    expect(buildReceiptQrData(parsed)).toBe(BEROHNDO_QR);
    expect(verifiesQrData(BEROHNDO_QR)).toBe(true);
  });

  it('rejects a clientId that could break the field layout', () => {
    const { input } = signedFinishQr('ecdsa-plain-SHA256', 'Beleg^0.00_0.00_0.00_0.00_0.00^');
    expect(() => buildReceiptQrData({ ...input, clientId: 'Kasse;1' })).toThrow(/clientId/);
  });

  it('rejects malformed QR strings', () => {
    const fields = BEROHNDO_QR.split(';');
    const withField = (index: number, value: string) => fields.map((f, i) => (i === index ? value : f)).join(';');
    expect(() => parseReceiptQrData(fields.slice(1).join(';'))).toThrow(/12/);
    expect(() => parseReceiptQrData(withField(0, 'V1'))).toThrow(/version/);
    expect(() => parseReceiptQrData(withField(4, '01'))).toThrow(/transactionNumber/);
    expect(() => parseReceiptQrData(withField(7, '2021-08-23T14:36:33Z'))).toThrow(/logTime/);
    expect(() => parseReceiptQrData(withField(6, '2021-02-30T14:36:33.000Z'))).toThrow(/startTime/);
    expect(() => parseReceiptQrData(withField(8, 'ecdsa-plain-SHA512'))).toThrow(/algorithm/);
    expect(() => parseReceiptQrData(withField(9, 'utcTime'))).toThrow(/time format/);
    expect(() => parseReceiptQrData(withField(10, 'not base64!'))).toThrow(/signature/);
  });
});

describe('formatTseTimestamp', () => {
  it('writes ISO 8601 UTC with milliseconds and Z', () => {
    expect(formatTseTimestamp(new Date('2026-11-22T21:21:20.123+01:00'))).toBe('2026-11-22T20:21:20.123Z');
    expect(formatTseTimestamp(new Date(1629729393 * 1000))).toBe('2021-08-23T14:36:33.000Z');
  });

  it('rejects invalid dates and years without four digits', () => {
    expect(() => formatTseTimestamp(new Date(NaN))).toThrow(RangeError);
    expect(() => formatTseTimestamp(new Date('+010000-01-01T00:00:00.000Z'))).toThrow(RangeError);
  });
});
