import type { Tx } from '../../db/transaction.js';
import { certificateStanding, signingCertificate } from '../../domain/certificates/certificateStatus.js';
import { unprocessable } from '../../domain/errors.js';
import type { SecretBox } from '../../lib/secretBox.js';

/** What signs a document: an active certificate of the jurisdiction and its private key. */
export interface SigningCertificate {
  certificateId: string;
  certificateDer: Buffer;
  /** PKCS#8 PEM. */
  privateKeyPem: string;
}

/**
 * The certificate check of a document submission (DESIGN "Fiscal certificates"), inside the
 * submission's transaction: 422 fiscal_certificate_expired when the organization has
 * certificates for the jurisdiction and none is active; else the certificate that signs
 * (active, with a private key), or null when there is none (the caller decides whether the
 * document needs one: FPA12 invoices do, 422 fiscal_certificate_required).
 */
export async function certificateForSubmission(
  tx: Tx,
  secrets: SecretBox,
  organizationId: string,
  jurisdiction: string,
  now: Date,
): Promise<SigningCertificate | null> {
  const certificates = await tx.fiscalCertificate.findMany({
    where: { merchantId: organizationId, jurisdiction },
    select: { id: true, validUntil: true, revokedAt: true, certificateDer: true, privateKeySealed: true },
  });
  if (certificateStanding(certificates, now) === 'none_active') {
    throw unprocessable('fiscal_certificate_expired', `No ${jurisdiction} fiscal certificate of this organization is active; upload a renewed one`, {
      jurisdiction,
    });
  }
  const signing = signingCertificate(
    certificates.map((certificate) => ({ ...certificate, hasPrivateKey: certificate.privateKeySealed !== null })),
    now,
  );
  if (!signing) return null;
  return {
    certificateId: signing.id,
    certificateDer: Buffer.from(signing.certificateDer),
    privateKeyPem: secrets.open(signing.privateKeySealed!),
  };
}
