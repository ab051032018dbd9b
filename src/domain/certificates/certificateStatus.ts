/** A fiscal certificate as its status rule sees it (DESIGN "Fiscal certificates and portal credentials"). */
export interface CertificateValidity {
  validUntil: Date;
  revokedAt: Date | null;
}

export type CertificateStatus = 'active' | 'expired' | 'revoked';

/** `revoked` once revoked, else `expired` after valid_until, else `active`. */
export function certificateStatus(certificate: CertificateValidity, now: Date): CertificateStatus {
  if (certificate.revokedAt) return 'revoked';
  return now.getTime() > certificate.validUntil.getTime() ? 'expired' : 'active';
}

/**
 * What an organization's certificates of one jurisdiction allow a document submission:
 * - `no_certificates`: none uploaded; submission does not depend on certificates;
 * - `none_active`: some uploaded, none active (422 fiscal_certificate_expired);
 * - `active`: at least one is active.
 */
export type CertificateStanding = 'no_certificates' | 'none_active' | 'active';

export function certificateStanding(certificates: readonly CertificateValidity[], now: Date): CertificateStanding {
  if (certificates.length === 0) return 'no_certificates';
  return certificates.some((certificate) => certificateStatus(certificate, now) === 'active') ? 'active' : 'none_active';
}

/**
 * The certificate that signs documents: of the active ones holding a private key, the one
 * valid longest (a renewal uploaded before the old one expires takes over at once); null when none.
 */
export function signingCertificate<T extends CertificateValidity & { hasPrivateKey: boolean }>(
  certificates: readonly T[],
  now: Date,
): T | null {
  return certificates
    .filter((certificate) => certificate.hasPrivateKey && certificateStatus(certificate, now) === 'active')
    .reduce<T | null>((best, certificate) => (best && best.validUntil >= certificate.validUntil ? best : certificate), null);
}
