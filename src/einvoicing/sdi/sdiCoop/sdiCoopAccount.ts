import { createPrivateKey, X509Certificate } from 'node:crypto';
import { unprocessable } from '../../../domain/errors.js';

/** What the SDICoop driver is given to reach SdIRiceviFile, as its PUT body names it. */
export interface SdiCoopAccount {
  endpoint: string;
  client_certificate: string;
  client_private_key: string;
  ca_certificates: string[];
}

/** The client certificate as the API shows it: what identifies it, never the key. */
export interface ClientCertificateFacts {
  subject: string;
  serial_number: string;
  sha256_fingerprint: string;
  valid_until: string;
}

const refused = (code: string, message: string, field: string, details: Record<string, unknown> = {}) =>
  unprocessable(code, message, { driver: 'sdicoop', field, ...details });

function certificateOf(pem: string, field: string, details: Record<string, unknown> = {}): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const code = field === 'client_certificate' ? 'invoice_channel_certificate_invalid' : 'invoice_channel_ca_certificate_invalid';
    throw refused(code, `${field} is not an X.509 certificate in PEM`, field, { ...details, reason });
  }
}

/**
 * Checks an SDICoop account without calling the SdI (RiceviFile has no harmless request to
 * try): the endpoint is https, the client certificate parses and is valid at `now`, the
 * private key parses and belongs to it, every CA parses. Each refusal is a 422 naming the
 * field; a key's parser's message is never repeated, so the key cannot leak into a response.
 * Returns what identifies the certificate.
 */
export function checkSdiCoopAccount(account: SdiCoopAccount, now: Date): ClientCertificateFacts {
  if (new URL(account.endpoint).protocol !== 'https:') {
    throw refused('invoice_channel_endpoint_not_https', 'SdIRiceviFile is reached over mutual TLS: the endpoint must be an https URL', 'endpoint');
  }
  const certificate = certificateOf(account.client_certificate, 'client_certificate');
  const validFrom = new Date(certificate.validFrom);
  const validTo = new Date(certificate.validTo);
  if (now < validFrom) {
    throw refused('invoice_channel_certificate_not_yet_valid', `The client certificate is valid from ${validFrom.toISOString()}`, 'client_certificate', { valid_from: validFrom.toISOString() });
  }
  if (now > validTo) {
    throw refused('invoice_channel_certificate_expired', `The client certificate expired at ${validTo.toISOString()}`, 'client_certificate', { valid_until: validTo.toISOString() });
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(account.client_private_key);
  } catch {
    throw refused('invoice_channel_private_key_invalid', 'client_private_key is not an unencrypted private key in PEM', 'client_private_key');
  }
  if (!certificate.checkPrivateKey(key)) {
    throw refused('invoice_channel_private_key_mismatch', 'client_private_key is not the key of client_certificate', 'client_private_key');
  }
  account.ca_certificates.forEach((pem, index) => certificateOf(pem, 'ca_certificates', { index }));
  return {
    subject: certificate.subject.split('\n').join(', '),
    serial_number: certificate.serialNumber,
    sha256_fingerprint: certificate.fingerprint256,
    valid_until: validTo.toISOString(),
  };
}
