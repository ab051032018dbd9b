import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import type * as pkijs from 'pkijs';
import { cryptoEngine, SIGNING_CERTIFICATE_V2_OID, signedDataOf } from './cms.js';

/** Why a CAdES-BES signature does not hold for a receiving verifier: it does not verify, or its certificate was not valid when it was received. */
export type CadesFault = { fault: 'signature_invalid' | 'certificate_expired'; detail: string };

/** The hash algorithms an ESSCertIDv2 may name, by OID (RFC 5035: SHA-256 when it names none). */
const HASH_ALGORITHMS: Record<string, string> = { '2.16.840.1.101.3.4.2.1': 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512' };

/** The certificate hash signing-certificate-v2 binds the signature to (its first ESSCertIDv2), with its algorithm; null when absent or unreadable. */
function boundCertificateHash(signerInfo: pkijs.SignerInfo): { algorithm: string; hash: Buffer } | null {
  const attribute = signerInfo.signedAttrs?.attributes.find(({ type }) => type === SIGNING_CERTIFICATE_V2_OID);
  const signingCertificate = attribute?.values[0] as asn1js.Sequence | undefined;
  const certIds = signingCertificate?.valueBlock.value[0] as asn1js.Sequence | undefined;
  const fields = (certIds?.valueBlock.value[0] as asn1js.Sequence | undefined)?.valueBlock.value ?? [];
  const [first, second] = fields;
  const named = first instanceof asn1js.Sequence ? (first.valueBlock.value[0] as asn1js.ObjectIdentifier | undefined)?.valueBlock.toString() : undefined;
  const algorithm = named === undefined ? 'sha256' : HASH_ALGORITHMS[named];
  const hash = named === undefined ? first : second;
  return algorithm && hash instanceof asn1js.OctetString ? { algorithm, hash: Buffer.from(hash.valueBlock.valueHexView) } : null;
}

/**
 * Checks a CAdES-BES `.p7m` as a receiving verifier (the SdI) does, at the time `at` it
 * receives it: the enclosed content matches the message digest, the signature over the signed
 * attributes verifies with the key of the certificate the file carries for its signer,
 * signing-certificate-v2 binds that very certificate, and the certificate is valid at `at`.
 * Returns what fails, or null when the signature holds. Whether the certificate's issuer is a
 * trusted authority is not checked: a sandbox's certificates are test ones.
 */
export async function cadesFault(p7m: Uint8Array, at: Date): Promise<CadesFault | null> {
  let signedData: pkijs.SignedData;
  try {
    signedData = signedDataOf(p7m);
  } catch {
    return { fault: 'signature_invalid', detail: 'the file is not a CMS SignedData' };
  }
  if (signedData.signerInfos.length !== 1) return { fault: 'signature_invalid', detail: `the file has ${signedData.signerInfos.length} signatures, not one` };
  let verified: pkijs.SignedDataVerifyResult;
  try {
    verified = await signedData.verify({ signer: 0, checkChain: false, extendedMode: true, checkDate: at }, cryptoEngine);
  } catch (error) {
    return { fault: 'signature_invalid', detail: error instanceof Error ? error.message : String(error) };
  }
  if (!verified.signatureVerified || !verified.signerCertificate) return { fault: 'signature_invalid', detail: 'the signature does not verify with the signer certificate' };
  const certificate = verified.signerCertificate;
  const bound = boundCertificateHash(signedData.signerInfos[0]);
  if (!bound) return { fault: 'signature_invalid', detail: 'signing-certificate-v2 is missing: not a CAdES-BES signature' };
  if (!bound.hash.equals(createHash(bound.algorithm).update(Buffer.from(certificate.toSchema().toBER())).digest())) {
    return { fault: 'signature_invalid', detail: 'signing-certificate-v2 names another certificate than the signer' };
  }
  const { value: notBefore } = certificate.notBefore;
  const { value: notAfter } = certificate.notAfter;
  if (at > notAfter) return { fault: 'certificate_expired', detail: `the signer certificate expired on ${notAfter.toISOString()}` };
  if (at < notBefore) return { fault: 'signature_invalid', detail: `the signer certificate is valid only from ${notBefore.toISOString()}` };
  return null;
}
