// The signer's own building blocks (src/fiscal/rksv) against the reference's vectors
// (reference/rksv.md §3, §4, §5, §6.1, §9.2), each value as published or derived there.
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aesKeyCheckValue } from '../../src/fiscal/rksv/aesKeyCheckValue.js';
import { chainValue } from '../../src/fiscal/rksv/chainValue.js';
import { compactJws, es256Signature, FAILED_SIGNATURE, JWS_HEADER, signingInput } from '../../src/fiscal/rksv/compactJws.js';
import { formatRksvAmount, qrCodeOf, receiptPayload, viennaLocalDateTime } from '../../src/fiscal/rksv/receiptCode.js';
import { taxSetOf, taxSetTotal } from '../../src/fiscal/rksv/taxSets.js';
import { encryptTurnoverCounter, STORNO_MARKER, TRAINING_MARKER, turnoverCounterIv } from '../../src/fiscal/rksv/turnoverCounter.js';

const KASSEN_ID = 'CASHBOX-DEMO-1';
const AES_KEY = Buffer.from('WQRtiiya3hYh/Uz44Bv3x8ETl1nrH6nCdErn69g5/lU=', 'base64');

describe('turnover counter (reference §4, §9.2)', () => {
  const vectors: [receipt: string, counter: bigint, iv: string, size8: string, size5: string][] = [
    ['CASHBOX-DEMO-1-Receipt-ID-1', 0n, '4229bc5028e623692c1e7ae498b47f3f', '4r1iIdZGeAQ=', '4r1iIdY='],
    ['CASHBOX-DEMO-1-Receipt-ID-2', 0n, 'cc51d74678e0005f51f1f73eda773e05', '4K6F7XVQOz0=', '4K6F7XU='],
    ['CASHBOX-DEMO-1-Receipt-ID-6', 50501n, '570ccd238a086fa18ee8086afde3b89a', 'k8wUAJDJ+Ro=', 'k8wUxdU='],
    ['CASHBOX-DEMO-1-Receipt-ID-7', 50501n, '09ac46ab4fca50c9f7e34a24e0082d35', 'albA1g2F6vI=', 'albAE0g='],
    ['CASHBOX-DEMO-1-Receipt-ID-11', 60243n, '9194b71b3c9c2f4e0314720dae625432', '3cILPTK2uvA=', '3cIL1mE='],
    ['CASHBOX-DEMO-1-Receipt-ID-11', -12345n, '9194b71b3c9c2f4e0314720dae625432', 'Ij30ws1JnmQ=', 'Ij308vU='],
  ];
  it.each(vectors)('%s with %i cents', (receiptNumber, counterCents, iv, size8, size5) => {
    expect(turnoverCounterIv(KASSEN_ID, receiptNumber).toString('hex')).toBe(iv);
    expect(encryptTurnoverCounter({ cashRegisterId: KASSEN_ID, receiptNumber, counterCents, aesKey: AES_KEY })).toBe(size8);
    expect(encryptTurnoverCounter({ cashRegisterId: KASSEN_ID, receiptNumber, counterCents, aesKey: AES_KEY, size: 5 })).toBe(size5);
  });

  it('marks storno and training receipts with STO and TRA', () => {
    expect(Buffer.from(STORNO_MARKER, 'base64').toString()).toBe('STO');
    expect(Buffer.from(TRAINING_MARKER, 'base64').toString()).toBe('TRA');
  });
});

describe('chain, key check value, header and failure marker', () => {
  it('chains the start receipt to the Kassen-ID (cg8hNU5ihto=) and checks the AES key (omRR)', () => {
    expect(chainValue(KASSEN_ID)).toBe('cg8hNU5ihto=');
    expect(aesKeyCheckValue(AES_KEY.toString('base64'))).toBe('omRR');
  });

  it('signs with the fixed ES256 header, and marks a failed device as §6.1 says', () => {
    expect(JWS_HEADER).toBe('eyJhbGciOiJFUzI1NiJ9');
    expect(FAILED_SIGNATURE).toBe('U2ljaGVyaGVpdHNlaW5yaWNodHVuZyBhdXNnZWZhbGxlbg');
  });
});

describe('the machine-readable code (reference §3)', () => {
  it('formats amounts with a decimal comma, two places, no grouping', () => {
    expect([0n, 5n, -3711n, 13572n, 123456789n, -1n].map(formatRksvAmount)).toEqual(['0,00', '0,05', '-37,11', '135,72', '1234567,89', '-0,01']);
  });

  it('dates receipts in Vienna local time without zone (summer and winter)', () => {
    expect(viennaLocalDateTime(new Date('2016-03-11T02:57:08Z'))).toBe('2016-03-11T03:57:08');
    expect(viennaLocalDateTime(new Date('2026-07-01T21:59:59.900Z'))).toBe('2026-07-01T23:59:59');
  });

  it('builds a payload of 13 fields starting with _, a JWS whose raw R‖S signature verifies, and its QR form', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const payload = receiptPayload({
      suite: 'R1-AT0',
      cashRegisterId: KASSEN_ID,
      receiptNumber: 'CASHBOX-DEMO-1-Receipt-ID-6',
      localDateTime: '2016-03-16T09:02:13',
      amounts: { normal: 12034n, reduced1: 2149n, reduced2: 13572n, zero: 3439n, special: 19307n },
      turnoverCounter: 'k8wUAJDJ+Ro=',
      signatureDeviceId: 'U:ATU12345678-K1',
      chainValue: 'cg8hNU5ihto=',
    });
    expect(payload).toBe(
      '_R1-AT0_CASHBOX-DEMO-1_CASHBOX-DEMO-1-Receipt-ID-6_2016-03-16T09:02:13_120,34_21,49_135,72_34,39_193,07_k8wUAJDJ+Ro=_U:ATU12345678-K1_cg8hNU5ihto=',
    );
    const input = signingInput(payload);
    const jws = compactJws(input, es256Signature(input, privateKey));
    const [, , signature] = jws.split('.');
    expect(Buffer.from(signature!, 'base64url')).toHaveLength(64);
    expect(verify('sha256', Buffer.from(input), { key: createPublicKey(publicKey.export({ type: 'spki', format: 'pem' })), dsaEncoding: 'ieee-p1363' }, Buffer.from(signature!, 'base64url'))).toBe(true);
    const qr = qrCodeOf(jws);
    expect(qr.split('_')).toHaveLength(14);
    expect(qr).toBe(`${payload}_${Buffer.from(signature!, 'base64url').toString('base64')}`);
  });
});

describe('the five amounts of a Standardbeleg (DESIGN)', () => {
  const line = (total: string, rate: string) => ({ type: 'item' as const, total_amount: total, taxes: [{ rate }] });

  it('puts each rate in its field, spreads cart discounts in proportion to gross, the tip at zero, and adds up to the total', () => {
    const amounts = taxSetOf({
      lineItems: [line('10.00', '0.20'), line('5.00', '0.10'), line('3.33', '0.13'), line('1.00', '0'), line('2.00', '0.19')],
      cartLevelDiscounts: [{ amount: '1.00' }],
      tipAmount: '0.50',
    });
    // Exact: 9.531177, 4.765588, 3.173882, 1.453118 (with the tip), 1.906235; rounded down they
    // leave 2 cents, which go to the largest remainders (special, then reduced_1).
    expect(amounts).toEqual({ normal: 953n, reduced1: 477n, reduced2: 317n, zero: 145n, special: 191n });
    expect(taxSetTotal(amounts)).toBe(2083n);
  });
});
