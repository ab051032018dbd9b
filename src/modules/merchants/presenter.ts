import type { AddressValue } from '../../db/records/address.js';
import type { MerchantView } from './schemas.js';
import type { MerchantWithFisconline, StoredFiscalIdentity } from './service.js';

const MASK = '********';

/** An ITA identity shows its Fisconline credential's user, and its password and PIN masked. */
function presentIdentity(identity: StoredFiscalIdentity, fisconlineUser: string | null): MerchantView['fiscal_identities'][number] {
  if (identity.country_code !== 'ITA') return identity as MerchantView['fiscal_identities'][number];
  return { ...identity, fisconline_user: fisconlineUser ?? '', fisconline_password: MASK, fisconline_pin: MASK } as MerchantView['fiscal_identities'][number];
}

export function presentMerchant(merchant: MerchantWithFisconline): MerchantView {
  return {
    id: merchant.id,
    legal_name: merchant.legalName,
    country_code: merchant.countryCode,
    status: merchant.status as MerchantView['status'],
    address: merchant.address as AddressValue,
    fiscal_identities: (merchant.fiscalIdentities as StoredFiscalIdentity[]).map((identity) => presentIdentity(identity, merchant.fisconlineUser)),
    resource_version: merchant.resourceVersion,
    created_at: merchant.createdAt.toISOString(),
    updated_at: merchant.updatedAt.toISOString(),
  };
}
