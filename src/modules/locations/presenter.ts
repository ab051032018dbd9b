import type { Location } from '../../db/generated/client.js';
import type { AddressValue } from '../common/schemas.js';
import type { LocationView } from './schemas.js';

export function presentLocation(location: Location): LocationView {
  return {
    id: location.id,
    merchant_id: location.merchantId,
    name: location.name,
    address: location.address as AddressValue,
    timezone: location.timezone,
    external_id: location.externalId,
    resource_version: location.resourceVersion,
    created_at: location.createdAt.toISOString(),
    updated_at: location.updatedAt.toISOString(),
  };
}
