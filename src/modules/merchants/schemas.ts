import { z } from 'zod';
import { Address, AddressInput, CountryCode, Timestamp } from '../common/schemas.js';

// Shapes only; the regimes' format rules (GLN, Italian codes) are checked in
// src/domain/merchants/fiscalIdentityRules.ts and answer 422, not 400. Each variant has an id, so
// the document names it (requests: DeuIdentityInput, ...; responses: DeuFiscalIdentity, ...) and the
// discriminator can map each country_code to it.
const DeuIdentity = z
  .strictObject({
    country_code: z.literal('DEU'),
    tax_number: z.string().min(1).max(64),
    vat_id: z.string().min(1).max(64),
  })
  .meta({ id: 'DeuIdentity' });

const AutIdentity = z
  .strictObject({
    country_code: z.literal('AUT'),
    legal_entity_id_type: z.enum(['VAT_ID', 'TAX_ID', 'GLN']),
    vat_id: z.string().min(1).max(64).optional(),
    tax_number: z.string().min(1).max(64).optional(),
    gln: z.string().min(1).max(64).optional(),
  })
  .meta({ id: 'AutIdentity' });

const ItaIdentity = z
  .strictObject({
    country_code: z.literal('ITA'),
    tax_number: z.string().min(1).max(64),
    vat_number: z.string().min(1).max(64),
    legal_entity_type: z.enum(['COMPANY', 'INDIVIDUAL']),
    fisconline_user: z.string().min(1).max(64),
    fisconline_password: z.string().min(1).max(256),
    fisconline_pin: z.string().min(1).max(64),
  })
  .meta({ id: 'ItaIdentity' });

export const FiscalIdentityInput = z
  .discriminatedUnion('country_code', [DeuIdentity, AutIdentity, ItaIdentity])
  .meta({ discriminator: { propertyName: 'country_code' } });

export type FiscalIdentityInputValue = z.infer<typeof FiscalIdentityInput>;

export const FiscalIdentity = z
  .discriminatedUnion('country_code', [
    z.object({ country_code: z.literal('DEU'), tax_number: z.string(), vat_id: z.string() }).meta({ id: 'DeuFiscalIdentity' }),
    z
      .object({
        country_code: z.literal('AUT'),
        legal_entity_id_type: z.enum(['VAT_ID', 'TAX_ID', 'GLN']),
        vat_id: z.string().optional(),
        tax_number: z.string().optional(),
        gln: z.string().optional(),
      })
      .meta({ id: 'AutFiscalIdentity' }),
    z
      .object({
        country_code: z.literal('ITA'),
        tax_number: z.string(),
        vat_number: z.string(),
        legal_entity_type: z.enum(['COMPANY', 'INDIVIDUAL']),
        fisconline_user: z.string(),
        fisconline_password: z.string().describe('Always masked in responses'),
        fisconline_pin: z.string().describe('Always masked in responses'),
      })
      .meta({ id: 'ItaFiscalIdentity' }),
  ])
  .meta({ id: 'FiscalIdentity', discriminator: { propertyName: 'country_code' } });

export const MerchantStatus = z.enum(['active', 'inactive']);

export const CreateMerchantBody = z.strictObject({
  legal_name: z.string().min(1).max(200),
  country_code: CountryCode,
  address: AddressInput,
  fiscal_identities: z.array(FiscalIdentityInput).max(3),
  status: MerchantStatus.optional(),
});

export const UpdateMerchantBody = z.strictObject({
  legal_name: z.string().min(1).max(200).optional(),
  status: MerchantStatus.optional(),
  address: AddressInput.optional(),
  fiscal_identities: z.array(FiscalIdentityInput).max(3).optional(),
});

export const Merchant = z
  .object({
    id: z.string(),
    legal_name: z.string(),
    country_code: z.string(),
    status: MerchantStatus,
    address: Address,
    fiscal_identities: z.array(FiscalIdentity),
    resource_version: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Merchant' });

export type MerchantView = z.infer<typeof Merchant>;
