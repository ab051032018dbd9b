import { z } from 'zod';
import { PORTAL_TYPE_NAMES } from '../../domain/portalCredentials/portalTypes.js';
import { Timestamp } from '../common/schemas.js';
import { Jurisdiction } from '../fiscalCertificates/schemas.js';
import { OrganizationParams } from '../styleO/schemas.js';

export const PortalType = z.enum(PORTAL_TYPE_NAMES as [string, ...string[]]).describe('fisconline and entratel (IT), finanz_online (AT)');

const secret = (description: string) => z.string().min(1).max(256).describe(description);

const CredentialsInput = z.strictObject({
  tax_id_number: secret('The taxpayer the credential acts for').optional(),
  participant_id: secret('FinanzOnline: participant id (Teilnehmer-Identifikation)').optional(),
  user_id: secret('Fisconline and Entratel: the fiscal code of the person who logs in; FinanzOnline: the user id').optional(),
  pin: secret('The PIN').optional(),
  password: secret('The password; Fisconline and Entratel passwords expire 90 days after they are set').optional(),
});

export const CreatePortalCredentialBody = z.strictObject({
  portal_type: PortalType,
  jurisdiction: Jurisdiction.describe('The portal\'s jurisdiction: IT for fisconline and entratel, AT for finanz_online'),
  label: z.string().min(1).max(200).optional(),
  credentials: CredentialsInput,
});

export const UpdatePortalCredentialBody = z.strictObject({
  label: z.string().min(1).max(200).nullable().optional().describe('null removes the label'),
  credentials: CredentialsInput.optional().describe('The fields sent replace the stored ones; a changed one sets state back to unvalidated'),
});

export const PortalCredentialListQuery = z.strictObject({ portal_type: PortalType.optional() });

export const PortalCredentialParams = OrganizationParams.extend({ credentialId: z.string().min(1).max(64) });

const Masked = z.string().nullable();

export const PortalCredential = z
  .object({
    object: z.literal('fiscal_portal_credential'),
    id: z.string(),
    organization_id: z.string(),
    portal_type: z.string(),
    jurisdiction: z.string(),
    state: z
      .enum(['unvalidated', 'valid', 'invalid', 'expired'])
      .describe('unvalidated until validated (and again after new secrets); valid or invalid as the last validation found; expired once the password expired'),
    label: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    expires_at: Timestamp.nullable().describe('When the password expires (Fisconline, Entratel: 90 days after it was set); null when it does not'),
    last_validated_at: Timestamp.nullable(),
    validation_error: z.string().nullable().describe('Why the last validation failed, while state is invalid'),
    masked_credentials: z
      .object({ tax_id_number: Masked, participant_id: Masked, user_id: Masked, pin: Masked, password: Masked })
      .describe('Each field held, masked: all but the last 2 characters as *, pin and password fully; null when not held'),
  })
  .meta({ id: 'FiscalPortalCredential', description: 'Fiscal portal credential (Style O, contract 2.11)' });

export type PortalCredentialView = z.infer<typeof PortalCredential>;

export const PortalCredentialList = z.object({ object: z.literal('list'), data: z.array(PortalCredential) });

export const DeletedPortalCredential = z.object({
  id: z.string(),
  object: z.literal('fiscal_portal_credential'),
  deleted: z.literal(true),
});
