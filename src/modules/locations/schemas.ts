import { z } from 'zod';
import { Address, AddressInput, Timestamp, Timezone } from '../common/schemas.js';

export const CreateLocationBody = z.strictObject({
  name: z.string().min(1).max(200),
  address: AddressInput,
  timezone: Timezone.optional(),
  external_id: z.string().min(1).max(200).nullable().optional(),
});

export const UpdateLocationBody = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  address: AddressInput.optional(),
  timezone: Timezone.optional(),
  external_id: z.string().min(1).max(200).nullable().optional(),
});

export const Location = z
  .object({
    id: z.string(),
    merchant_id: z.string(),
    name: z.string(),
    address: Address,
    timezone: z.string(),
    external_id: z.string().nullable(),
    resource_version: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Location' });

export type LocationView = z.infer<typeof Location>;
