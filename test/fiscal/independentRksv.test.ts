import { createCipheriv, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  aesKeyCheckValue,
  chainValue,
  counterPlaintext,
  decodeCompactJws,
  decryptTurnoverCounter,
  encryptTurnoverCounter,
  JWS_HEADER_SEGMENT,
  jwsFromQr,
  ocrFromJws,
  qrFromJws,
  SIGNATURE_FAILED_BYTES,
  STORNO_MARKER,
  TRAINING_MARKER,
  turnoverCounterIv,
  verifyDep,
  verifyReceiptQr,
} from './independentRksv.js';

// Published inputs and derived vectors of reference/rksv.md §9.
const DEMO_REGISTER = 'CASHBOX-DEMO-1';
const DEMO_AES_KEY = 'WQRtiiya3hYh/Uz44Bv3x8ETl1nrH6nCdErn69g5/lU=';
const demoReceipt = (n: number) => `${DEMO_REGISTER}-Receipt-ID-${n}`;

const COUNTER_VECTORS = [
  { receipt: demoReceipt(1), cents: 0n, iv: '4229bc5028e623692c1e7ae498b47f3f', n8: '4r1iIdZGeAQ=', n5: '4r1iIdY=' },
  { receipt: demoReceipt(2), cents: 0n, iv: 'cc51d74678e0005f51f1f73eda773e05', n8: '4K6F7XVQOz0=', n5: '4K6F7XU=' },
  { receipt: demoReceipt(6), cents: 50501n, iv: '570ccd238a086fa18ee8086afde3b89a', n8: 'k8wUAJDJ+Ro=', n5: 'k8wUxdU=' },
  { receipt: demoReceipt(7), cents: 50501n, iv: '09ac46ab4fca50c9f7e34a24e0082d35', n8: 'albA1g2F6vI=', n5: 'albAE0g=' },
  { receipt: demoReceipt(11), cents: 60243n, iv: '9194b71b3c9c2f4e0314720dae625432', n8: '3cILPTK2uvA=', n5: '3cIL1mE=' },
  { receipt: demoReceipt(11), cents: -12345n, iv: '9194b71b3c9c2f4e0314720dae625432', n8: 'Ij30ws1JnmQ=', n5: 'Ij308vU=' },
];

describe('RKSV derived vectors (reference §9.2)', () => {
  it.each(COUNTER_VECTORS)('encrypts and decrypts the counter $cents of $receipt for N=8 and N=5', (vector) => {
    expect(turnoverCounterIv(DEMO_REGISTER, vector.receipt).toString('hex')).toBe(vector.iv);
    for (const [sizeBytes, expected] of [[8, vector.n8], [5, vector.n5]] as const) {
      const input = { cashRegisterId: DEMO_REGISTER, receiptNumber: vector.receipt, aesKeyBase64: DEMO_AES_KEY };
      expect(encryptTurnoverCounter({ ...input, counterCents: vector.cents, sizeBytes })).toBe(expected);
      expect(decryptTurnoverCounter({ ...input, encryptedBase64: expected })).toBe(vector.cents);
    }
  });

  it('matches ECB(IV) XOR plaintext, the equivalent the Mustercode asserts', () => {
    for (const vector of COUNTER_VECTORS) {
      const cipher = createCipheriv('aes-256-ecb', Buffer.from(DEMO_AES_KEY, 'base64'), null);
      const keystream = cipher.update(turnoverCounterIv(DEMO_REGISTER, vector.receipt));
      const plaintext = counterPlaintext(vector.cents, 8);
      const ciphertext = Buffer.from(plaintext.map((byte, i) => byte ^ keystream[i]));
      expect(ciphertext.toString('base64')).toBe(vector.n8);
    }
  });

  it('writes counters as big-endian two’s complement', () => {
    expect(counterPlaintext(0n, 8).toString('hex')).toBe('0000000000000000');
    expect(counterPlaintext(50501n, 8).toString('hex')).toBe('000000000000c545');
    expect(counterPlaintext(-12345n, 8).toString('hex')).toBe('ffffffffffffcfc7');
    expect(counterPlaintext(-12345n, 5).toString('hex')).toBe('ffffffcfc7');
    expect(() => counterPlaintext(1n << 39n, 5)).toThrow(/does not fit/);
  });

  it('reproduces the other constants', () => {
    expect(chainValue(DEMO_REGISTER)).toBe('cg8hNU5ihto=');
    expect(aesKeyCheckValue(DEMO_AES_KEY)).toBe('omRR');
    expect(STORNO_MARKER).toBe('U1RP');
    expect(TRAINING_MARKER).toBe('VFJB');
    expect(JWS_HEADER_SEGMENT).toBe('eyJhbGciOiJFUzI1NiJ9');
    expect(SIGNATURE_FAILED_BYTES.toString('base64url')).toBe('U2ljaGVyaGVpdHNlaW5yaWNodHVuZyBhdXNnZWZhbGxlbg');
  });
});

type ReceiptType = 'standard' | 'storno' | 'training';

interface ReceiptSpec {
  number: string;
  date: string;
  amounts?: string[];
  type?: ReceiptType;
  failed?: boolean;
  /** Overrides the counter the register would write. */
  counterCents?: bigint;
  /** Overrides the chain value the register would write. */
  chain?: string;
  /** Overrides the register's counter size. */
  counterBytes?: number;
}

const ZERO = ['0,00', '0,00', '0,00', '0,00', '0,00'];

function cents(amount: string): bigint {
  const [euros, fraction] = amount.replace('-', '').split(',');
  const value = BigInt(euros) * 100n + BigInt(fraction);
  return amount.startsWith('-') ? -value : value;
}

/** A hand-made closed-system register: builds the JWS of each receipt from the reference alone. */
class TestRegister {
  readonly keyId = 'U:ATU12345678-K1';
  readonly privateKey: KeyObject;
  readonly publicKeySpki: string;
  readonly receipts: string[] = [];
  private runningCents = 0n;

  constructor(
    readonly cashRegisterId: string,
    readonly aesKeyBase64: string = randomBytes(32).toString('base64'),
    readonly counterBytes = 8,
  ) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKeySpki = pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  }

  add(spec: ReceiptSpec): string {
    const amounts = spec.amounts ?? ZERO;
    const type = spec.type ?? 'standard';
    if (type !== 'training') this.runningCents += amounts.reduce((sum, amount) => sum + cents(amount), 0n);
    const counterField =
      type === 'storno'
        ? 'U1RP'
        : type === 'training'
          ? 'VFJB'
          : encryptTurnoverCounter({
              cashRegisterId: this.cashRegisterId,
              receiptNumber: spec.number,
              counterCents: spec.counterCents ?? this.runningCents,
              aesKeyBase64: this.aesKeyBase64,
              sizeBytes: spec.counterBytes ?? this.counterBytes,
            });
    const previous = this.receipts.at(-1) ?? this.cashRegisterId;
    const chain = spec.chain ?? chainValue(previous);
    const payload = ['', 'R1-AT0', this.cashRegisterId, spec.number, spec.date, ...amounts, counterField, this.keyId, chain].join('_');
    const signingInput = `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(payload, 'utf8').toString('base64url')}`;
    const signature = spec.failed
      ? Buffer.from('Sicherheitseinrichtung ausgefallen', 'ascii')
      : sign('sha256', Buffer.from(signingInput, 'ascii'), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    const jws = `${signingInput}.${signature.toString('base64url')}`;
    this.receipts.push(jws);
    return jws;
  }

  dep(receipts: string[] = this.receipts) {
    return { 'Belege-Gruppe': [{ Signaturzertifikat: '', Zertifizierungsstellen: [], 'Belege-kompakt': receipts }] };
  }

  container() {
    return {
      base64AESKey: this.aesKeyBase64,
      certificateOrPublicKeyMap: {
        [this.keyId]: { id: this.keyId, signatureDeviceType: 'PUBLIC_KEY', signatureCertificateOrPublicKey: this.publicKeySpki },
      },
    };
  }
}

/** Part of the demo scenario of §9.1: start, null, failed standard, collective null, training, storno, null. */
function demoRegister(counterBytes = 8): TestRegister {
  const register = new TestRegister(DEMO_REGISTER, DEMO_AES_KEY, counterBytes);
  register.add({ number: demoReceipt(1), date: '2016-03-11T03:57:08' });
  register.add({ number: demoReceipt(2), date: '2016-03-12T08:00:00' });
  register.add({ number: demoReceipt(6), date: '2016-03-16T09:02:13', amounts: ['120,34', '21,49', '135,72', '34,39', '193,07'], failed: true });
  register.add({ number: demoReceipt(7), date: '2016-03-16T09:05:00' });
  register.add({ number: demoReceipt(8), date: '2016-03-17T10:00:00', amounts: ['10,00', '0,00', '0,00', '0,00', '5,50'], type: 'training' });
  register.add({ number: demoReceipt(10), date: '2016-03-18T11:00:00', amounts: ['117,75', '-37,11', '3,58', '27,10', '-13,90'], type: 'storno' });
  register.add({ number: demoReceipt(11), date: '2016-03-18T11:00:00' });
  return register;
}

function errorsOf(register: TestRegister, receipts?: string[]): string[] {
  return verifyDep(register.dep(receipts), register.container()).errors;
}

describe('independent RKSV DEP verifier', () => {
  it('accepts a clean DEP, passed as objects or as JSON text, and reads every receipt', () => {
    const register = demoRegister();
    const result = verifyDep(JSON.stringify(register.dep()), JSON.stringify(register.container()), { counterBytes: 8 });
    expect(result.errors).toEqual([]);
    expect(result.receipts.map((r) => [r.receiptNumber, r.kind, r.counterCents, r.signatureFailed])).toEqual([
      [demoReceipt(1), 'start', 0n, false],
      [demoReceipt(2), 'null', 0n, false],
      [demoReceipt(6), 'standard', 50501n, true],
      [demoReceipt(7), 'null', 50501n, false],
      [demoReceipt(8), 'training', null, false],
      [demoReceipt(10), 'storno', null, false],
      [demoReceipt(11), 'null', 60243n, false],
    ]);
    expect(result.receipts[5].amountsCents).toEqual([11775n, -3711n, 358n, 2710n, -1390n]);
    expect(result.receipts[2].date).toBe('2016-03-16T09:02:13');
    const field10 = (jws: string) => decodeCompactJws(jws).fields.turnoverCounter;
    expect(register.receipts.map(field10)).toEqual(['4r1iIdZGeAQ=', '4K6F7XVQOz0=', 'k8wUAJDJ+Ro=', 'albA1g2F6vI=', 'VFJB', 'U1RP', '3cILPTK2uvA=']);
    expect(decodeCompactJws(register.receipts[0]).fields.chainValue).toBe('cg8hNU5ihto=');
  });

  it('accepts 5-byte counters, and reports a counter size other than the expected one or a change of size', () => {
    const register = demoRegister(5);
    expect(verifyDep(register.dep(), register.container(), { counterBytes: 5 }).errors).toEqual([]);
    expect(verifyDep(register.dep(), register.container(), { counterBytes: 8 }).errors).toContainEqual(
      `receipt ${demoReceipt(1)}: turnover counter is 5 bytes, not 8 like the register's counter`,
    );
    const mixed = new TestRegister('K1');
    mixed.add({ number: '1', date: '2024-01-01T00:00:00' });
    mixed.add({ number: '2', date: '2024-01-01T00:00:01', counterBytes: 5 });
    expect(errorsOf(mixed)).toEqual(["receipt 2: turnover counter is 5 bytes, not 8 like the register's counter"]);
  });

  it('verifies an export that starts after the start receipt, given the receipt before it and its counter', () => {
    const register = demoRegister();
    const result = verifyDep(register.dep(register.receipts.slice(4)), register.container(), {
      continuesFrom: { jws: register.receipts[3], counterCents: 50501n },
    });
    expect(result.errors).toEqual([]);
    expect(result.receipts.map((r) => r.kind)).toEqual(['training', 'storno', 'null']);
    expect(errorsOf(register, register.receipts.slice(4))).toContainEqual(
      expect.stringMatching(/^receipt CASHBOX-DEMO-1-Receipt-ID-8: chain value .* computed from the Kassen-ID$/),
    );
  });

  it('accepts a signed non-null receipt between the failure and the collective null receipt', () => {
    const register = new TestRegister('K1');
    register.add({ number: '1', date: '2024-01-01T00:00:00' });
    register.add({ number: '2', date: '2024-01-01T00:00:01', amounts: ['1,00', ...ZERO.slice(1)], failed: true });
    register.add({ number: '3', date: '2024-01-01T00:00:02', amounts: ['1,00', ...ZERO.slice(1)], failed: true });
    register.add({ number: '4', date: '2024-01-01T00:00:03', amounts: ['2,00', ...ZERO.slice(1)] });
    register.add({ number: '5', date: '2024-01-01T00:00:04' });
    expect(errorsOf(register)).toEqual([]);
  });

  describe('reports', () => {
    function startedRegister(): TestRegister {
      const register = new TestRegister('REG-7');
      register.add({ number: 'B1', date: '2024-05-01T08:00:00' });
      register.add({ number: 'B2', date: '2024-05-01T09:00:00', amounts: ['12,00', '5,50', '0,00', '0,00', '0,00'] });
      return register;
    }

    it('a broken chain', () => {
      const register = startedRegister();
      register.add({ number: 'B3', date: '2024-05-01T10:00:00', chain: chainValue('REG-7') });
      expect(errorsOf(register)).toEqual([
        `receipt B3: chain value ${chainValue('REG-7')} does not match ${chainValue(register.receipts[1])} computed from the previous receipt`,
      ]);
    });

    it('a tampered amount, whose signature no longer verifies', () => {
      const register = startedRegister();
      const [header, payload, signature] = register.receipts[1].split('.');
      const tampered = Buffer.from(payload, 'base64url').toString('utf8').replace('_12,00_', '_2,00_');
      const receipts = [register.receipts[0], [header, Buffer.from(tampered).toString('base64url'), signature].join('.')];
      const errors = errorsOf(register, receipts);
      expect(errors).toContain('receipt B2: signature does not verify with the public key of U:ATU12345678-K1');
      expect(errors).toContain('receipt B2: turnover counter decrypts to 1750 cents, expected the running sum 750');
    });

    it('a wrong counter', () => {
      const register = startedRegister();
      register.add({ number: 'B3', date: '2024-05-01T10:00:00', amounts: ['1,00', ...ZERO.slice(1)], counterCents: 1849n });
      expect(errorsOf(register)).toEqual(['receipt B3: turnover counter decrypts to 1849 cents, expected the running sum 1850']);
    });

    it('a duplicate receipt number', () => {
      const register = startedRegister();
      register.add({ number: 'B2', date: '2024-05-01T10:00:00' });
      expect(errorsOf(register)).toEqual(['receipt B2: duplicate receipt number']);
    });

    it('a decreasing date', () => {
      const register = startedRegister();
      register.add({ number: 'B3', date: '2024-05-01T08:59:59' });
      expect(errorsOf(register)).toEqual(["receipt B3: date 2024-05-01T08:59:59 is before the previous receipt's 2024-05-01T09:00:00"]);
    });

    it('a padded segment', () => {
      const register = startedRegister();
      const receipts = [...register.receipts.slice(0, 1), `${register.receipts[1]}==`];
      expect(errorsOf(register, receipts)).toEqual(["receipt #2: signature segment carries base64 padding '='"]);
    });

    it('an unsigned start receipt', () => {
      const register = new TestRegister('REG-8');
      register.add({ number: 'S', date: '2024-05-01T08:00:00', failed: true });
      register.add({ number: 'N', date: '2024-05-01T08:00:01' });
      expect(errorsOf(register)).toEqual(['receipt S: start receipt is not signed (it carries the signature device failure marker)']);
    });

    it('a start receipt with amounts, or as storno', () => {
      const withAmounts = new TestRegister('REG-9');
      withAmounts.add({ number: 'S', date: '2024-05-01T08:00:00', amounts: ['1,00', ...ZERO.slice(1)] });
      expect(errorsOf(withAmounts)).toEqual(['receipt S: start receipt has non-zero amounts', 'receipt S: start receipt counter is 100 cents, not 0']);
      const storno = new TestRegister('REG-9');
      storno.add({ number: 'S', date: '2024-05-01T08:00:00', type: 'storno' });
      expect(errorsOf(storno)).toEqual(['receipt S: start receipt is a storno or training receipt']);
    });

    it('a missing collective receipt after a failure', () => {
      const register = startedRegister();
      register.add({ number: 'B3', date: '2024-05-01T10:00:00', amounts: ['3,00', ...ZERO.slice(1)], failed: true });
      register.add({ number: 'B4', date: '2024-05-01T10:00:01', amounts: ['4,00', ...ZERO.slice(1)] });
      register.add({ number: 'B5', date: '2024-05-01T10:00:02', amounts: ['5,00', ...ZERO.slice(1)] });
      expect(errorsOf(register)).toEqual([
        'receipt B5: no signed collective null receipt after the signature device failure ending at receipt B3; receipt B4 was not one and neither is this one',
      ]);
    });

    it('malformed fields, another Kassen-ID and a receipt outside the closed system', () => {
      const register = startedRegister();
      register.add({ number: 'B3', date: '2024-05-01T10:00:00' });
      const [header, payload, signature] = register.receipts[2].split('.');
      const fields = Buffer.from(payload, 'base64url').toString('utf8').split('_');
      fields[1] = 'R1-AT1';
      fields[2] = 'REG-X';
      fields[4] = '2024-05-31T25:00:00';
      fields[5] = '1.00';
      fields[6] = '05,00';
      fields[11] = 'ATU12345678';
      const forged = `${header}.${Buffer.from(fields.join('_')).toString('base64url')}.${signature}`;
      expect(errorsOf(register, [...register.receipts.slice(0, 2), forged])).toEqual([
        'receipt B3: suite R1-AT1 is not the closed system R1-AT0',
        'receipt B3: date "2024-05-31T25:00:00" is not a valid yyyy-MM-ddTHH:mm:ss',
        'receipt B3: amount 1 "1.00" is malformed',
        'receipt B3: amount 2 "05,00" is malformed',
        'receipt B3: field 11 "ATU12345678" is not an Ordnungsbegriff (S:, U:, G:) with an optional key id',
        'receipt B3: Kassen-ID REG-X differs from REG-7',
        'receipt B3: field 11 ATU12345678 differs from U:ATU12345678-K1 of the rest of its group',
        'receipt B3: no public key for field 11 ATU12345678 in the crypto-material container',
        expect.stringMatching(/^receipt B3: turnover counter decrypts to -?\d+ cents, expected the running sum 1750$/),
      ]);
    });

    it('a signature by another key, and a malformed DEP and crypto-material container', () => {
      const register = startedRegister();
      const stranger = new TestRegister('REG-7', register.aesKeyBase64);
      const container = { ...register.container(), certificateOrPublicKeyMap: stranger.container().certificateOrPublicKeyMap };
      expect(verifyDep(register.dep(), container).errors).toEqual([
        'receipt B1: signature does not verify with the public key of U:ATU12345678-K1',
        'receipt B2: signature does not verify with the public key of U:ATU12345678-K1',
      ]);
      const badContainer = {
        base64AESKey: 'AAAA',
        certificateOrPublicKeyMap: { 'U:ATU12345678-K1': { id: 'other', signatureDeviceType: 'CERTIFICATE', signatureCertificateOrPublicKey: 'AAAA' } },
      };
      const badDep = { 'Belege-Gruppe': [{ Signaturzertifikat: '', 'Belege-kompakt': 'x', extra: 1 }] };
      expect(verifyDep(badDep, badContainer).errors).toEqual([
        'base64AESKey is 3 bytes, not 32',
        'certificateOrPublicKeyMap["U:ATU12345678-K1"].id "other" differs from its map key',
        expect.stringMatching(/^certificateOrPublicKeyMap\["U:ATU12345678-K1"\]\.signatureCertificateOrPublicKey: /),
        'Belege-Gruppe[0] has an unexpected member "extra"',
        'Belege-Gruppe[0].Zertifizierungsstellen is not an array',
        'Belege-Gruppe[0].Belege-kompakt is not an array',
      ]);
      expect(verifyDep('{', register.container()).errors).toEqual([
        expect.stringMatching(/^DEP export is not JSON: /),
        'DEP export is not an object with a "Belege-Gruppe" array',
      ]);
    });
  });
});

describe('compact JWS decoding', () => {
  const register = new TestRegister('K9');
  const jws = register.add({ number: '1', date: '2024-01-01T00:00:00' });
  const [, payload, signature] = jws.split('.');
  const text = Buffer.from(payload, 'base64url').toString('utf8');
  const withPayload = (value: string) => `${JWS_HEADER_SEGMENT}.${Buffer.from(value).toString('base64url')}.${signature}`;

  it('returns the header, the 13 payload segments, the fields and the raw signature', () => {
    const decoded = decodeCompactJws(jws);
    expect(decoded.header).toBe('{"alg":"ES256"}');
    expect(decoded.segments).toHaveLength(13);
    expect(decoded.segments[0]).toBe('');
    expect(decoded.fields).toMatchObject({ suite: 'R1-AT0', cashRegisterId: 'K9', receiptNumber: '1', keyId: 'U:ATU12345678-K1', amounts: ZERO });
    expect(decoded.signature).toHaveLength(64);
    expect(decoded.signatureFailed).toBe(false);
  });

  it('rejects padding, another header, a wrong field count, a payload without leading _ and a short signature', () => {
    const paddedPayload = Buffer.from(text).toString('base64');
    expect(paddedPayload.endsWith('=')).toBe(true);
    expect(() => decodeCompactJws(`${JWS_HEADER_SEGMENT}.${paddedPayload.replace(/\+/g, '-').replace(/\//g, '_')}.${signature}`)).toThrow(
      "payload: payload segment carries base64 padding '='",
    );
    const typedHeader = Buffer.from('{"alg":"ES256","typ":"JWT"}').toString('base64url');
    expect(() => decodeCompactJws(`${typedHeader}.${payload}.${signature}`)).toThrow(/header must be exactly/);
    expect(() => decodeCompactJws(withPayload(`${text}_extra`))).toThrow('payload has 13 fields, not 12');
    expect(() => decodeCompactJws(withPayload(text.slice(1)))).toThrow("payload does not start with '_'");
    expect(() => decodeCompactJws(`${JWS_HEADER_SEGMENT}.${payload}.${signature.slice(0, 40)}`)).toThrow(/neither a raw 64-byte R\|\|S/);
    expect(() => decodeCompactJws(`${JWS_HEADER_SEGMENT}.${payload}`)).toThrow(/3 '.'-separated segments/);
  });
});

describe('printed representations and single-receipt checks', () => {
  const register = demoRegister();
  const [start, , failed, , , storno, last] = register.receipts;

  it('turns a JWS into its QR code and back', () => {
    for (const jws of register.receipts) expect(jwsFromQr(qrFromJws(jws))).toBe(jws);
    const qr = qrFromJws(start).split('_');
    expect(qr).toHaveLength(14);
    expect(qr[13]).toBe(decodeCompactJws(start).signature.toString('base64'));
    expect(qrFromJws(failed).split('_')[13]).toBe('U2ljaGVyaGVpdHNlaW5yaWNodHVuZyBhdXNnZWZhbGxlbg==');
    expect(() => jwsFromQr(qrFromJws(start).slice(1))).toThrow(/14 '_'-separated segments/);
  });

  it('builds the OCR code with base32 counter, chain value and signature', () => {
    const ocr = ocrFromJws(storno).split('_');
    expect(ocr[10]).toBe('KNKE6===');
    expect(ocr[12]).toMatch(/^[A-Z2-7]{13}===$/);
    expect(ocr[13]).toMatch(/^[A-Z2-7]{103}=$/);
    expect(ocr.slice(0, 10)).toEqual(qrFromJws(storno).split('_').slice(0, 10));
  });

  it('verifies one receipt from its QR code', () => {
    const ok = verifyReceiptQr(qrFromJws(last), register.publicKeySpki, DEMO_AES_KEY, 60243n);
    expect(ok.errors).toEqual([]);
    expect(ok.counterCents).toBe(60243n);
    expect(ok.jws).toBe(last);
    expect(verifyReceiptQr(qrFromJws(last), register.publicKeySpki, DEMO_AES_KEY, 60244n).errors).toEqual([
      'turnover counter is 60243 cents, expected 60244 cents',
    ]);
    const stranger = new TestRegister(DEMO_REGISTER);
    expect(verifyReceiptQr(qrFromJws(last), stranger.publicKeySpki, DEMO_AES_KEY).errors).toEqual(['signature does not verify with the given public key']);
    const broken = verifyReceiptQr(qrFromJws(failed), register.publicKeySpki, DEMO_AES_KEY, 50501n);
    expect([broken.signatureFailed, broken.errors]).toEqual([true, []]);
    expect(verifyReceiptQr(qrFromJws(storno), register.publicKeySpki, DEMO_AES_KEY, 60243n).errors).toEqual([
      'turnover counter is the marker U1RP, expected 60243 cents',
    ]);
    expect(verifyReceiptQr('_x', register.publicKeySpki, DEMO_AES_KEY).errors).toEqual([
      "a QR code has 14 '_'-separated segments, the first empty",
    ]);
  });
});
