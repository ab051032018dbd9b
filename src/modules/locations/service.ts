import type { z } from 'zod';
import type { Location, Merchant } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { assertCurrentVersion } from '../../domain/resourceVersion.js';
import { conflict, notFound } from '../../domain/errors.js';
import { newId } from '../../lib/ids.js';
import { defaultTimeZone } from '../../domain/countryTimeZones.js';
import type { AddressValue } from '../../db/records/address.js';
import { toStoredAddress } from '../common/schemas.js';
import type { Tx } from '../../db/transaction.js';
import type { Finalize } from '../common/transactions.js';
import type { CreateLocationBody, UpdateLocationBody } from './schemas.js';
import { sqlOf } from '../../db/sql.js';

export async function createLocation(
  ctx: AppContext,
  merchant: Merchant,
  input: z.infer<typeof CreateLocationBody>,
  finalize?: Finalize<Location>,
): Promise<Location> {
  return ctx.db.$transaction(async (tx) => {
    const location = await tx.location.create({
      data: {
        id: newId('loc'),
        merchantId: merchant.id,
        name: input.name,
        address: toStoredAddress(input.address),
        timezone: input.timezone ?? defaultTimeZone(input.address.country_code),
        externalId: input.external_id ?? null,
      },
    });
    await finalize?.(sqlOf(tx), location);
    return location;
  });
}

export async function listLocations(ctx: AppContext, merchant: Merchant): Promise<Location[]> {
  return ctx.db.location.findMany({ where: { merchantId: merchant.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

export async function getLocation(ctx: AppContext | { db: Tx }, merchant: Merchant, id: string): Promise<Location> {
  const location = await ctx.db.location.findFirst({ where: { id, merchantId: merchant.id } });
  if (!location) throw notFound('location', id);
  return location;
}

/** A Style O `state` survives a Style M address change within the same country (Style M cannot express it). */
function withKeptState(stored: unknown, next: AddressValue): AddressValue & { state?: string } {
  const state = (stored as { state?: string | null; country_code?: string } | null)?.state;
  const sameCountry = (stored as { country_code?: string } | null)?.country_code === next.country_code;
  return state && sameCountry ? { ...next, state } : next;
}

async function lockLocation(tx: Tx, merchant: Merchant, id: string): Promise<Location> {
  await tx.$queryRaw`SELECT id FROM locations WHERE id = ${id} FOR UPDATE`;
  return getLocation({ db: tx }, merchant, id);
}

export async function updateLocation(
  ctx: AppContext,
  merchant: Merchant,
  id: string,
  input: z.infer<typeof UpdateLocationBody>,
  expectedVersion: number | undefined,
  finalize?: Finalize<Location>,
): Promise<Location> {
  return ctx.db.$transaction(async (tx) => {
    const current = await lockLocation(tx, merchant, id);
    assertCurrentVersion(expectedVersion, current.resourceVersion);
    const location = await tx.location.update({
      where: { id },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.address !== undefined ? { address: withKeptState(current.address, toStoredAddress(input.address)) } : {}),
        ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
        ...(input.external_id !== undefined ? { externalId: input.external_id } : {}),
        resourceVersion: { increment: 1 },
        updatedAt: new Date(),
      },
    });
    await finalize?.(sqlOf(tx), location);
    return location;
  });
}

export async function deleteLocation(ctx: AppContext, merchant: Merchant, id: string): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    await lockLocation(tx, merchant, id);
    const registers = await tx.register.count({ where: { locationId: id } });
    if (registers > 0) {
      throw conflict('location_has_registers', 'The location still has registers; delete them first', { register_count: registers });
    }
    await tx.location.delete({ where: { id } });
  });
}
