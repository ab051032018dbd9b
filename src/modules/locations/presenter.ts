import type { Location } from '../../db/generated/client.js';
import type { AddressValue } from '../../db/records/address.js';
import type { LocationView } from './schemas.js';

export function presentLocation(location: Location): LocationView {
  // The record may also hold a Style O `state`, which the Style M address does not show.
  const address = location.address as AddressValue;
  return {
    id: location.id,
    merchant_id: location.merchantId,
    name: location.name,
    address: {
      line1: address.line1,
      line2: address.line2 ?? null,
      city: address.city,
      postal_code: address.postal_code,
      country_code: address.country_code,
    },
    timezone: location.timezone,
    external_id: location.externalId,
    resource_version: location.resourceVersion,
    created_at: location.createdAt.toISOString(),
    updated_at: location.updatedAt.toISOString(),
  };
}
