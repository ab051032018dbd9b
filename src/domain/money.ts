import { Decimal } from 'decimal.js';

/**
 * Constructor behind every amount. decimal.js rounds results to 20 significant digits by
 * default, which would silently round sums of large 8-decimal amounts; at 100 digits the
 * sums and products done here are exact for any amount a request can carry.
 */
const Money = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_HALF_UP });

const AMOUNT_PATTERN = /^-?\d+(\.\d+)?$/;
const CURRENCY_PATTERN = /^[A-Z]{3}$/;

export type AmountLike = string | Decimal;

/**
 * Parses a decimal-string amount. The HTTP layer has already checked the shape; the check
 * here only keeps inputs decimal.js would also accept (`1e3`, `Infinity`, `0x1f`) out.
 */
export function parseAmount(s: string): Decimal {
  if (!AMOUNT_PATTERN.test(s)) throw new RangeError(`not a decimal amount: ${JSON.stringify(s)}`);
  return new Money(s);
}

/** An amount as a high-precision Decimal, whether given as a string or as any Decimal. */
export function toAmount(value: AmountLike): Decimal {
  return typeof value === 'string' ? parseAmount(value) : new Money(value);
}

/** A decimal string's sign, its integer digits without leading zeros, and its fraction digits. */
const AMOUNT_PARTS = /^(-?)0*(\d+)(?:\.(\d+))?$/;

/**
 * Formats without exponent and without ever rounding: at least `minPlaces` decimals
 * (`1.5` -> `1.50`), more only when the value has them (`0.12345678` stays). Negative zero
 * prints as `0.00`. A string is formatted from its digits, as a Decimal of it would be:
 * presenters format every amount of every response, and a Decimal for each cost more
 * than the rest of their work.
 */
export function formatAmount(value: AmountLike, minPlaces = 2): string {
  if (typeof value === 'string') return formatDecimalString(value, minPlaces);
  const d = toAmount(value);
  return d.toFixed(Math.max(minPlaces, d.decimalPlaces()));
}

function formatDecimalString(s: string, minPlaces: number): string {
  const parts = AMOUNT_PARTS.exec(s);
  if (!parts) throw new RangeError(`not a decimal amount: ${JSON.stringify(s)}`);
  const [, sign, integer, fraction = ''] = parts;
  const places = fraction.replace(/0+$/, '').padEnd(minPlaces, '0');
  const zero = integer === '0' && !/[1-9]/.test(fraction);
  return `${zero ? '' : sign}${integer}${places ? `.${places}` : ''}`;
}

export function sumAmounts(values: Iterable<AmountLike>): Decimal {
  let sum = new Money(0);
  for (const value of values) sum = sum.plus(toAmount(value));
  return sum;
}

/** ISO 4217 minor-unit exponents that differ from the usual 2. */
const EXPONENT_EXCEPTIONS: ReadonlyMap<string, number> = new Map([
  ...['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'].map(
    (code) => [code, 0] as const,
  ),
  ...['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].map((code) => [code, 3] as const),
  ...['CLF', 'UYW'].map((code) => [code, 4] as const),
]);

/** Number of decimals of the currency's minor unit; any code not listed as an exception has 2. */
export function currencyExponent(currency: string): number {
  const code = currency.toUpperCase();
  if (!CURRENCY_PATTERN.test(code)) throw new RangeError(`not an ISO 4217 currency code: ${JSON.stringify(currency)}`);
  return EXPONENT_EXCEPTIONS.get(code) ?? 2;
}

/** Integer amount in minor units; throws rather than drop a fraction of a minor unit or lose integer precision. */
export function toMinorUnits(amount: AmountLike, currency: string): number {
  const exponent = currencyExponent(currency);
  const value = toAmount(amount);
  if (value.decimalPlaces() > exponent) {
    throw new RangeError(`${value.toFixed()} ${currency} has more than ${exponent} decimal places`);
  }
  const minor = value.times(new Money(10).pow(exponent));
  if (minor.abs().gt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`${value.toFixed()} ${currency} does not fit a safe integer of minor units`);
  }
  // toNumber() would turn a negative zero into -0, which JSON prints as 0 but Object.is tells apart.
  return minor.isZero() ? 0 : minor.toNumber();
}

export function fromMinorUnits(minor: number, currency: string): Decimal {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`minor units must be a safe integer: ${minor}`);
  return new Money(minor).dividedBy(new Money(10).pow(currencyExponent(currency)));
}
