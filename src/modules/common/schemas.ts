import { z } from 'zod';
import type { AddressValue } from '../../db/records/address.js';
import { PAYMENT_METHODS } from '../../domain/paymentMethods.js';

/** ISO 3166-1 alpha-3, uppercase, exactly three letters (contract 2, Style M). */
export const CountryCode = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 3166-1 alpha-3 code in uppercase, e.g. DEU');

export const Timestamp = z.iso.datetime({ offset: true });

/**
 * The instants a date-time input may name: every store and printer of the service
 * (PostgreSQL, toISOString, the four-digit years of receipts and DSFinV-K) holds them.
 */
export const EARLIEST_INPUT_INSTANT = Date.UTC(1970, 0, 1);
export const LATEST_INPUT_INSTANT = Date.UTC(10000, 0, 1) - 1;

/** A request date-time whose instant (after its offset) lies from 1970-01-01T00:00:00Z to latest(); `window` words that range. */
export function boundedTimestampInput(latest: () => number, window: string) {
  return Timestamp.refine((text) => {
    const instant = Date.parse(text);
    return instant >= EARLIEST_INPUT_INSTANT && instant <= latest();
  }, `must be ${window}`).describe(`Date-time with offset, ${window}`);
}

/** Every date-time input of a request, unless a field documents a narrower window. */
export const TimestampInput = boundedTimestampInput(
  () => LATEST_INPUT_INSTANT,
  'from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z',
);

export const ResourceId = z.string().min(1).max(64);

export const IdParams = z.strictObject({ id: ResourceId });

/** Request address (Style M). */
export const AddressInput = z.strictObject({
  line1: z.string().min(1).max(200),
  line2: z.string().max(200).nullable().optional(),
  city: z.string().min(1).max(100),
  postal_code: z.string().min(1).max(20),
  country_code: CountryCode,
});

export const Address = z
  .object({
    line1: z.string(),
    line2: z.string().nullable(),
    city: z.string(),
    postal_code: z.string(),
    country_code: z.string(),
  })
  .meta({ id: 'Address' });

export const toStoredAddress = (address: z.infer<typeof AddressInput>): AddressValue => ({
  line1: address.line1,
  line2: address.line2 ?? null,
  city: address.city,
  postal_code: address.postal_code,
  country_code: address.country_code,
});

export const DeletedResponse = z.object({ id: z.string(), deleted: z.literal(true) });

export function isIanaTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.includes('/') || zone === 'UTC';
  } catch {
    return false;
  }
}

export const Timezone = z.string().refine(isIanaTimezone, 'must be an IANA time zone name, e.g. Europe/Berlin');

export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

/** The page parameters of every cursor-paginated list (common/cursor.ts). */
export const PageQuery = {
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(200).optional(),
};

/** A cursor-paginated list: `cursor` names the next page, null on the last. */
export const cursorListOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), cursor: z.string().nullable() });

const knownPaymentMethods = Object.entries(PAYMENT_METHODS)
  .map(([name, method]) => {
    const also = method.aliases.length ? ` (also ${method.aliases.join(', ')})` : '';
    const booked = method.zahlart ?? 'none (a redeemed gift card needs gift_card_id and is booked as MehrzweckgutscheinEinloesung)';
    return `${name}${also} → ${booked}`;
  })
  .join('; ');

/** A payment's method in a request: free text, with the known methods of paymentMethods.ts described. */
export const PaymentMethodInput = z
  .string()
  .min(1)
  .max(50)
  .describe(
    'Any text, stored and echoed exactly as sent. Known methods are matched trimmed, in any case, with a space or hyphen ' +
      `for the underscore; each is shown with its DSFinV-K payment type (ZAHLART_TYP): ${knownPaymentMethods}. ` +
      'Only cash counts in the drawer\'s expected cash and is signed as Bar by the TSE; every other method, known or not, is non-cash (Unbar).',
  );

/** A payment's method in a response. */
export const PaymentMethodView = z.string().describe('The method exactly as sent');
