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

/** The `fiscalization.rksv` block of an Austrian register (DESIGN "Austria: RKSV"). */
export const RksvFiscalization = z
  .object({
    cash_register_id: z.string().describe('The Kassen-ID, field 2 of every receipt; register it in FinanzOnline'),
    suite: z.literal('R1-AT0'),
    signature_device_id: z.string().describe('Field 11 of every receipt: <Ordnungsbegriff>-<key id>, equal to tse_serial'),
    public_key: z.string().describe('Base64 DER SubjectPublicKeyInfo of the signature device (ES256, P-256)'),
    aes_key_check_value: z.string().describe('Check value of the AES key for manual entry in FinanzOnline'),
    turnover_counter_size: z.number().int(),
    start_receipt: z
      .object({ receipt_number: z.string(), jws: z.string(), qr_data: z.string() })
      .describe('The signed start receipt (Startbeleg); check it with the BMF Belegcheck app after registration'),
  })
  .meta({ id: 'RksvFiscalization' });

export const Fiscalization = z
  .object({
    regime: z.enum(['KassenSichV', 'RKSV', 'RT']),
    fiscalized_at: Timestamp,
    tse_serial: z.string().nullable().describe('KassenSichV: the TSE serial; RKSV: the signature device id (field 11)'),
    client_id: z.string().nullable().describe('KassenSichV: the TSE client id; RKSV: the Kassen-ID'),
    rksv: RksvFiscalization.optional().describe('RKSV registers only'),
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
