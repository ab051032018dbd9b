import type { Merchant } from '../../db/generated/client.js';
import type { AddressValue } from '../../db/records/address.js';
import type { MerchantView } from './schemas.js';
import type { StoredFiscalIdentity } from './service.js';

const MASK = '********';

function presentIdentity(identity: StoredFiscalIdentity): MerchantView['fiscal_identities'][number] {
  if (identity.country_code !== 'ITA') return identity as MerchantView['fiscal_identities'][number];
  const { fisconline_password_sealed: _password, fisconline_pin_sealed: _pin, ...rest } = identity;
  return { ...rest, fisconline_password: MASK, fisconline_pin: MASK } as MerchantView['fiscal_identities'][number];
}

export function presentMerchant(merchant: Merchant): MerchantView {
  return {
    id: merchant.id,
    legal_name: merchant.legalName,
    country_code: merchant.countryCode,
    status: merchant.status as MerchantView['status'],
    address: merchant.address as AddressValue,
    fiscal_identities: (merchant.fiscalIdentities as StoredFiscalIdentity[]).map(presentIdentity),
    resource_version: merchant.resourceVersion,
    created_at: merchant.createdAt.toISOString(),
    updated_at: merchant.updatedAt.toISOString(),
  };
}
