import { z } from 'zod';
import { alpha3Of } from '../../domain/styleO/countries.js';

/** Style O conventions (contract 2): integer minor units, decimal-string rates, `object` discriminators. */
export const MinorUnits = z
  .number()
  .int()
  .describe('Integer amount in minor units of the currency (ISO 4217 exponent: EUR cents, JPY yen)');

export const Rate = z.string().describe('Decimal string, e.g. "0.19"');

export const StyleOHeaders = z.object({
  'service-organization': z
    .string()
    .optional()
    .describe(
      'The organization the call acts for. Required with platform keys; an organization key may omit it (another organization is 403); a tenant key sends it unless the path names the organization.',
    ),
});

export const StyleOMutationHeaders = StyleOHeaders.extend({
  'idempotency-key': z
    .string()
    .optional()
    .describe('Optional UUID; a retry with the same key and payload returns the original response, another payload is 409 idempotency_key_conflict'),
});

const MetadataValue = z.union([z.string().max(500), z.number(), z.boolean()]);

/** Free-form key/value data of the integrator: up to 50 keys of at most 40 characters; values up to 500 characters. */
export const MetadataInput = z
  .record(z.string().min(1).max(40), MetadataValue)
  .refine((value) => Object.keys(value).length <= 50, 'must have at most 50 keys')
  .describe('Up to 50 keys (1-40 characters) with string (max 500), number or boolean values');

/** PATCH: the keys sent are merged into the stored metadata; a key sent as null is removed. */
export const MetadataPatch = z
  .record(z.string().min(1).max(40), MetadataValue.nullable())
  .describe('Keys to set (merged into the stored metadata); a key set to null is removed');

export const Metadata = z.record(z.string(), z.unknown());

export const CountryAlpha2 = z
  .string()
  .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in uppercase, e.g. DE')
  .refine((code) => alpha3Of(code) !== undefined, 'is not a supported country')
  .describe('ISO 3166-1 alpha-2, uppercase (e.g. DE, AT, IT)');

export const StyleOAddressInput = z.strictObject({
  line1: z.string().min(1).max(200),
  line2: z.string().max(200).nullable().optional(),
  city: z.string().min(1).max(100),
  state: z.string().max(100).nullable().optional(),
  postal_code: z.string().min(1).max(20),
  country: CountryAlpha2,
});

/** PATCH: only the address fields sent change. */
export const StyleOAddressPatch = z.strictObject({
  line1: z.string().min(1).max(200).optional(),
  line2: z.string().max(200).nullable().optional(),
  city: z.string().min(1).max(100).optional(),
  state: z.string().max(100).nullable().optional(),
  postal_code: z.string().min(1).max(20).optional(),
  country: CountryAlpha2.optional(),
});

export const StyleOAddress = z
  .object({
    line1: z.string(),
    line2: z.string().nullable(),
    city: z.string(),
    state: z.string().nullable(),
    postal_code: z.string(),
    country: z.string().describe('ISO 3166-1 alpha-2'),
  })
  .meta({ id: 'OrganizationAddress' });

export const OrganizationParams = z.strictObject({ organizationId: z.string().min(1).max(64) });
