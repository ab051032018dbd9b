import type { Decimal } from 'decimal.js';
import { localDateTimeOf } from '../../domain/localTime.js';
import { signingInput } from './compactJws.js';

/**
 * Suite R1 of a closed system (geschlossenes Gesamtsystem): public keys instead of certificates (reference §2).
 * A register signing with a trust service's certificate has `R1-<ZDA id>` instead (R1-AT1 for A-Trust).
 */
export const CLOSED_SYSTEM_SUITE = 'R1-AT0';

/** The five amounts of a receipt, gross per rate, in cents. */
export interface TaxSetCents {
  normal: bigint;
  reduced1: bigint;
  reduced2: bigint;
  zero: bigint;
  special: bigint;
}

export const TAX_SET_ORDER = ['normal', 'reduced1', 'reduced2', 'zero', 'special'] as const satisfies readonly (keyof TaxSetCents)[];

/** The fields of the signed payload (reference §3.1), field 13 (the signature) excepted. */
export interface ReceiptPayloadFields {
  /** Field 1: the algorithm suite and ZDA id. */
  suite: string;
  cashRegisterId: string;
  receiptNumber: string;
  /** Local date and time, yyyy-MM-ddTHH:mm:ss. */
  localDateTime: string;
  amounts: TaxSetCents;
  /** Field 10: the encrypted counter, or the storno or training marker. */
  turnoverCounter: string;
  /** Field 11: the Ordnungsbegriff and key id of the signature device, or its certificate serial. */
  signatureDeviceId: string;
  chainValue: string;
}

/** An amount in cents as the receipt code writes it: decimal comma, two places, no grouping. */
export function formatRksvAmount(cents: bigint): string {
  const sign = cents < 0n ? '-' : '';
  const digits = (cents < 0n ? -cents : cents).toString().padStart(3, '0');
  return `${sign}${digits.slice(0, -2)},${digits.slice(-2)}`;
}

/** Cents of an amount that has at most two places. */
export function centsOf(amount: Decimal): bigint {
  const cents = amount.times(100);
  if (!cents.isInteger()) throw new RangeError(`${amount.toString()} has more than two decimal places`);
  return BigInt(cents.toFixed(0));
}

/** The data to be signed: thirteen fields joined by `_`, starting with `_`. */
export function receiptPayload(fields: ReceiptPayloadFields): string {
  return [
    '',
    fields.suite,
    fields.cashRegisterId,
    fields.receiptNumber,
    fields.localDateTime,
    ...TAX_SET_ORDER.map((rate) => formatRksvAmount(fields.amounts[rate])),
    fields.turnoverCounter,
    fields.signatureDeviceId,
    fields.chainValue,
  ].join('_');
}

/** The QR code of a receipt: the payload, `_`, and the signature in standard Base64 (reference §3.3). */
export function qrCodeOf(jws: string): string {
  const [, payload, signature] = jws.split('.');
  if (payload === undefined || signature === undefined) throw new TypeError('not a compact JWS');
  return `${Buffer.from(payload, 'base64url').toString('utf8')}_${Buffer.from(signature, 'base64url').toString('base64')}`;
}

/** The inverse of qrCodeOf: the JWS signing input a QR code's payload makes, and its signature in base64url. */
export function signedPartsOfQrCode(qrCode: string): { signingInput: string; signature: string } {
  const cut = qrCode.lastIndexOf('_');
  if (cut <= 0) throw new TypeError('not an RKSV QR code');
  const payload = qrCode.slice(0, cut);
  return {
    signingInput: signingInput(payload),
    signature: Buffer.from(qrCode.slice(cut + 1), 'base64').toString('base64url'),
  };
}

/** Austria's time zone: receipt dates and months are Vienna's. */
export const VIENNA = 'Europe/Vienna';

/** The receipt date: Vienna local time without zone or fractions (DESIGN, reference §3.1). */
export function viennaLocalDateTime(at: Date): string {
  const local = localDateTimeOf(at, VIENNA);
  return `${local.year}-${local.month}-${local.day}T${local.hour}:${local.minute}:${local.second}`;
}
