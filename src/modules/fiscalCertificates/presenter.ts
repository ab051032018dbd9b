import type { FiscalCertificate } from '../../db/generated/client.js';
import { certificateStatus } from '../../domain/certificates/certificateStatus.js';
import type { HttpResult } from '../../http/idempotency.js';
import type { FiscalCertificateView } from './schemas.js';

export function presentFiscalCertificate(certificate: FiscalCertificate, now: Date): FiscalCertificateView {
  return {
    object: 'fiscal_certificate',
    id: certificate.id,
    organization_id: certificate.merchantId,
    jurisdiction: certificate.jurisdiction,
    label: certificate.label,
    status: certificateStatus(certificate, now),
    subject: certificate.subject,
    issuer: certificate.issuer,
    serial_number: certificate.serialNumber,
    valid_from: certificate.validFrom.toISOString(),
    valid_until: certificate.validUntil.toISOString(),
    fingerprint: certificate.fingerprint,
    created_at: certificate.createdAt.toISOString(),
    revoked_at: certificate.revokedAt?.toISOString() ?? null,
  };
}

export const fiscalCertificateResult = (certificate: FiscalCertificate, status: number, now: Date): HttpResult => ({
  status,
  body: presentFiscalCertificate(certificate, now),
});
