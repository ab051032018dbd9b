import { z } from 'zod';
import { ResourceId, Timestamp } from '../common/schemas.js';

export const RegisterStatus = z.enum(['active', 'inactive']);
export const FiscalizationStatus = z.enum(['not_fiscalized', 'pending', 'failed', 'fiscalized', 'decommissioned']);

export const CreateRegisterBody = z.strictObject({
  location_id: ResourceId,
  name: z.string().min(1).max(200),
  external_id: z.string().min(1).max(200).nullable().optional(),
});

export const UpdateRegisterBody = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  status: RegisterStatus.optional(),
  external_id: z.string().min(1).max(200).nullable().optional(),
});

export const Fiscalization = z
  .object({
    regime: z.enum(['KassenSichV', 'RKSV', 'RT']),
    fiscalized_at: Timestamp,
    tse_serial: z.string().nullable(),
    client_id: z.string().nullable(),
  })
  .meta({ id: 'RegisterFiscalization' });

export const Register = z
  .object({
    id: z.string(),
    merchant_id: z.string(),
    location_id: z.string(),
    name: z.string(),
    status: RegisterStatus,
    fiscalization_status: FiscalizationStatus,
    fiscalization: Fiscalization.nullable(),
    external_id: z.string().nullable(),
    current_session_id: z.string().nullable(),
    resource_version: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
    decommissionedAt: Timestamp.nullable(),
  })
  .meta({ id: 'Register' });

export type RegisterView = z.infer<typeof Register>;
