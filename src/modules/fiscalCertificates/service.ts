import type { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { FiscalCertificate, Merchant } from '../../db/generated/client.js';
import { sqlOf } from '../../db/sql.js';
import { conflict, invalidRequest, notFound, unprocessable } from '../../domain/errors.js';
import { newId } from '../../lib/ids.js';
import { parseCertificate, parsePrivateKey, pkcs8Pem } from '../../lib/x509Certificate.js';
import type { Finalize } from '../common/transactions.js';
import type { UploadFiscalCertificateBody } from './schemas.js';

/** Reads and checks an upload: the certificate, and the key against its public key. */
function readUpload(ctx: AppContext, input: z.infer<typeof UploadFiscalCertificateBody>) {
  const facts = parseCertificate(input.certificate);
  if (!facts) {
    throw invalidRequest('certificate must be one X.509 certificate, PEM or base64 DER', { field: 'certificate' });
  }
  if (input.private_key === undefined) return { facts, sealedKey: null };
  const key = parsePrivateKey(input.private_key);
  if (!key) {
    throw invalidRequest('private_key must be an unencrypted PEM private key', { field: 'private_key' });
  }
  if (!facts.x509.checkPrivateKey(key)) {
    throw unprocessable('validation_error', "private_key does not match the certificate's public key", { field: 'private_key' });
  }
  return { facts, sealedKey: ctx.secrets.seal(pkcs8Pem(key)) };
}

export async function uploadFiscalCertificate(
  ctx: AppContext,
  organization: Merchant,
  input: z.infer<typeof UploadFiscalCertificateBody>,
  finalize?: Finalize<FiscalCertificate>,
): Promise<FiscalCertificate> {
  const { facts, sealedKey } = readUpload(ctx, input);
  return ctx.db.$transaction(async (tx) => {
    // One upload at a time per organization, so two uploads of one certificate cannot both pass the check.
    await tx.$queryRaw`SELECT id FROM merchants WHERE id = ${organization.id} FOR UPDATE`;
    const existing = await tx.fiscalCertificate.findUnique({
      where: { merchantId_fingerprint: { merchantId: organization.id, fingerprint: facts.fingerprint } },
      select: { id: true },
    });
    if (existing) {
      throw conflict('fiscal_certificate_exists', 'This organization already has this certificate', {
        field: 'certificate',
        fingerprint: facts.fingerprint,
        certificate_id: existing.id,
      });
    }
    const certificate = await tx.fiscalCertificate.create({
      data: {
        id: newId('fcert'),
        merchantId: organization.id,
        jurisdiction: input.jurisdiction,
        label: input.label ?? null,
        certificateDer: new Uint8Array(facts.der),
        subject: facts.subject,
        issuer: facts.issuer,
        serialNumber: facts.serialNumber,
        fingerprint: facts.fingerprint,
        validFrom: facts.validFrom,
        validUntil: facts.validUntil,
        privateKeySealed: sealedKey,
        createdAt: ctx.clock(),
      },
    });
    await finalize?.(sqlOf(tx), certificate);
    return certificate;
  });
}

export async function listFiscalCertificates(ctx: AppContext, organization: Merchant): Promise<FiscalCertificate[]> {
  return ctx.db.fiscalCertificate.findMany({
    where: { merchantId: organization.id },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

export async function getFiscalCertificate(ctx: AppContext, organization: Merchant, id: string): Promise<FiscalCertificate> {
  const certificate = await ctx.db.fiscalCertificate.findFirst({ where: { id, merchantId: organization.id } });
  if (!certificate) throw notFound('fiscal_certificate', id);
  return certificate;
}

export async function revokeFiscalCertificate(
  ctx: AppContext,
  organization: Merchant,
  id: string,
  finalize?: Finalize<FiscalCertificate>,
): Promise<FiscalCertificate> {
  return ctx.db.$transaction(async (tx) => {
    const [locked] = await tx.$queryRaw<{ revoked_at: Date | null }[]>`
      SELECT revoked_at FROM fiscal_certificates WHERE id = ${id} AND merchant_id = ${organization.id} FOR UPDATE`;
    if (!locked) throw notFound('fiscal_certificate', id);
    if (locked.revoked_at) {
      throw conflict('fiscal_certificate_already_revoked', 'This certificate is already revoked', {
        certificate_id: id,
        revoked_at: locked.revoked_at.toISOString(),
      });
    }
    const certificate = await tx.fiscalCertificate.update({ where: { id }, data: { revokedAt: ctx.clock() } });
    await finalize?.(sqlOf(tx), certificate);
    return certificate;
  });
}
