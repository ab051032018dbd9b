import { z } from 'zod';
import type { Location, Merchant } from '../../db/generated/client.js';
import type { Prisma as PrismaNs } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { alpha2Of, alpha3Of } from '../../domain/styleO/countries.js';
import { notFound, validationError } from '../../domain/errors.js';
import type { HttpResult } from '../../http/idempotency.js';
import { newId } from '../../lib/ids.js';
import type { AddressValue } from '../../db/records/address.js';
import { Timestamp, Timezone } from '../common/schemas.js';
import type { Finalize } from '../common/transactions.js';
import {
  Metadata,
  MetadataInput,
  MetadataPatch,
  StyleOAddress,
  StyleOAddressInput,
  StyleOAddressPatch,
} from '../styleO/schemas.js';
import { defaultTimeZone } from '../../domain/countryTimeZones.js';
import { sqlOf } from '../../db/sql.js';

// ---- schemas (contract 2.7) ----

export const CreateOrganizationLocationBody = z.strictObject({
  name: z.string().min(1).max(200),
  address: StyleOAddressInput,
  timezone: Timezone.optional().describe('IANA time zone name; defaults to the country\'s (Europe/Berlin for DE)'),
  metadata: MetadataInput.optional(),
});

export const UpdateOrganizationLocationBody = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  address: StyleOAddressPatch.optional().describe('Only the address fields sent change; line2 or state sent as null are cleared'),
  timezone: Timezone.optional(),
  metadata: MetadataPatch.optional(),
});

export const OrganizationLocation = z
  .object({
    object: z.literal('location'),
    id: z.string(),
    organization_id: z.string(),
    name: z.string(),
    address: StyleOAddress,
    timezone: z.string(),
    metadata: Metadata,
    created_at: Timestamp,
  })
  .meta({ id: 'OrganizationLocation', description: 'Location (Style O, contract 2.7): the same record as the Style M location, with the two-letter country' });

export type OrganizationLocationView = z.infer<typeof OrganizationLocation>;

/** One location record serves both styles: the Style M address plus an optional `state`. */
export type StoredAddress = AddressValue & { state?: string | null };

// ---- presenter ----

/** A stored address (alpha-3 country) in the Style O shape (alpha-2 country, explicit nulls). */
export function presentStyleOAddress(address: {
  line1: string;
  line2?: string | null;
  state?: string | null;
  city: string;
  postal_code: string;
  country_code: string;
}): OrganizationLocationView['address'] {
  return {
    line1: address.line1,
    line2: address.line2 ?? null,
    city: address.city,
    state: address.state ?? null,
    postal_code: address.postal_code,
    country: alpha2Of(address.country_code),
  };
}

export function presentOrganizationLocation(location: Location): OrganizationLocationView {
  return {
    object: 'location',
    id: location.id,
    organization_id: location.merchantId,
    name: location.name,
    address: presentStyleOAddress(location.address as StoredAddress),
    timezone: location.timezone,
    metadata: (location.metadata ?? {}) as Record<string, unknown>,
    created_at: location.createdAt.toISOString(),
  };
}

export const organizationLocationResult = (location: Location, status: number): HttpResult => ({
  status,
  body: presentOrganizationLocation(location),
});

// ---- service ----

function toStored(address: z.infer<typeof StyleOAddressInput>): StoredAddress {
  return {
    line1: address.line1,
    line2: address.line2 ?? null,
    city: address.city,
    postal_code: address.postal_code,
    country_code: alpha3Of(address.country)!,
    ...(address.state ? { state: address.state } : {}),
  };
}

export async function createOrganizationLocation(
  ctx: AppContext,
  organization: Merchant,
  input: z.infer<typeof CreateOrganizationLocationBody>,
  finalize?: Finalize<Location>,
): Promise<Location> {
  const address = toStored(input.address);
  return ctx.db.$transaction(async (tx) => {
    const location = await tx.location.create({
      data: {
        id: newId('loc'),
        merchantId: organization.id,
        name: input.name,
        address,
        timezone: input.timezone ?? defaultTimeZone(address.country_code),
        metadata: (input.metadata ?? {}) as PrismaNs.InputJsonValue,
      },
    });
    await finalize?.(sqlOf(tx), location);
    return location;
  });
}

/** Only the fields sent change; the Style M resource_version moves on too, so Style M ETags stay honest. */
export async function updateOrganizationLocation(
  ctx: AppContext,
  organization: Merchant,
  id: string,
  input: z.infer<typeof UpdateOrganizationLocationBody>,
  finalize?: Finalize<Location>,
): Promise<Location> {
  return ctx.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM locations WHERE id = ${id} FOR UPDATE`;
    const current = await tx.location.findFirst({ where: { id, merchantId: organization.id } });
    if (!current) throw notFound('location', id);

    let address: StoredAddress | undefined;
    if (input.address) {
      const stored = current.address as StoredAddress;
      const patch = input.address;
      const state = patch.state !== undefined ? patch.state : (stored.state ?? null);
      address = {
        line1: patch.line1 ?? stored.line1,
        line2: patch.line2 !== undefined ? patch.line2 : (stored.line2 ?? null),
        city: patch.city ?? stored.city,
        postal_code: patch.postal_code ?? stored.postal_code,
        country_code: patch.country ? alpha3Of(patch.country)! : stored.country_code,
        ...(state ? { state } : {}),
      };
    }
    let metadata: Record<string, unknown> | undefined;
    if (input.metadata) {
      metadata = { ...((current.metadata ?? {}) as Record<string, unknown>) };
      for (const [key, value] of Object.entries(input.metadata)) {
        if (value === null) delete metadata[key];
        else metadata[key] = value;
      }
      if (Object.keys(metadata).length > 50) {
        throw validationError('metadata may hold at most 50 keys', { field: 'metadata', key_count: Object.keys(metadata).length });
      }
    }
    const location = await tx.location.update({
      where: { id },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(address ? { address } : {}),
        ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
        ...(metadata ? { metadata: metadata as PrismaNs.InputJsonValue } : {}),
        resourceVersion: { increment: 1 },
        updatedAt: new Date(),
      },
    });
    await finalize?.(sqlOf(tx), location);
    return location;
  });
}
