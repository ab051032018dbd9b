import { z } from 'zod';
import { JURISDICTIONS } from '../../domain/jurisdictions.js';
import { Timestamp } from '../common/schemas.js';
import { OrganizationParams } from '../styleO/schemas.js';

export const Jurisdiction = z.enum(JURISDICTIONS).describe('Two-letter jurisdiction the certificate is for (IT signs Italian invoices)');

export const UploadFiscalCertificateBody = z.strictObject({
  jurisdiction: Jurisdiction,
  label: z.string().min(1).max(200).optional(),
  certificate: z
    .string()
    .min(1)
    .max(65_536)
    .describe('One X.509 certificate: PEM (-----BEGIN CERTIFICATE-----) or base64 DER'),
  private_key: z
    .string()
    .min(1)
    .max(65_536)
    .optional()
    .describe("The certificate's private key as unencrypted PEM (PKCS#8, RSA or EC); sealed at rest and never returned"),
});

export const FiscalCertificate = z
  .object({
    object: z.literal('fiscal_certificate'),
    id: z.string(),
    organization_id: z.string(),
    jurisdiction: z.string(),
    label: z.string().nullable(),
    status: z.enum(['active', 'expired', 'revoked']).describe('revoked once revoked, else expired after valid_until, else active'),
    subject: z.string().describe('Distinguished name, RFC 4514 (most specific RDN first)'),
    issuer: z.string().describe('Distinguished name, RFC 4514 (most specific RDN first)'),
    serial_number: z.string().describe('Lowercase hex'),
    valid_from: Timestamp,
    valid_until: Timestamp,
    fingerprint: z.string().describe('SHA-256 of the certificate (DER), lowercase hex'),
    created_at: Timestamp,
    revoked_at: Timestamp.nullable(),
  })
  .meta({ id: 'FiscalCertificate', description: 'Fiscal certificate (Style O, contract 2.12)' });

export type FiscalCertificateView = z.infer<typeof FiscalCertificate>;

export const FiscalCertificateList = z.object({ object: z.literal('list'), data: z.array(FiscalCertificate) });

export const FiscalCertificateParams = OrganizationParams.extend({ certificateId: z.string().min(1).max(64) });
