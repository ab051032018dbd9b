import type { SqlClient } from '../../db/sql.js';
import type { SecretBox } from '../../lib/secretBox.js';

/**
 * One signature device as the container lists it: a closed system (R1-AT0)
 * by its public key, a trust service's unit by its certificate.
 */
export interface SignatureDeviceKey {
  /** Field 11 of the device's receipts. */
  id: string;
  signatureDeviceType: 'PUBLIC_KEY' | 'CERTIFICATE';
  /** Base64 DER SubjectPublicKeyInfo (RFC 5480), or base64 DER X.509 certificate. */
  signatureCertificateOrPublicKey: string;
}

/**
 * cryptographicMaterialContainer.json (reference rksv.md §7.2): the AES key
 * that decrypts the turnover counters and the key or certificate of every
 * signature device, keyed by its field-11 id. FinanzOnline registration and
 * the BMF verifier need it to check the register's receipts and DEP.
 */
export interface CryptographicMaterialContainer {
  base64AESKey: string;
  certificateOrPublicKeyMap: Record<string, SignatureDeviceKey>;
}

const SELECT_KEYS = 'SELECT signature_device_id, public_key, certificate, aes_key_enc FROM rksv_cash_registers WHERE register_id = $1';

/**
 * The crypto material of an RKSV register, its AES key opened from its seal;
 * null when the register has no RKSV signature unit (another regime, or never
 * fiscalized). A register taken out of service keeps it: its DEP must stay
 * verifiable for auditors.
 */
export async function cryptographicMaterialOf(sql: SqlClient, secrets: SecretBox, registerId: string): Promise<CryptographicMaterialContainer | null> {
  const [keys] = await sql.query<{ signature_device_id: string; public_key: string; certificate: string | null; aes_key_enc: string }>(SELECT_KEYS, [
    registerId,
  ]);
  if (!keys) return null;
  return {
    base64AESKey: secrets.open(keys.aes_key_enc),
    certificateOrPublicKeyMap: {
      [keys.signature_device_id]: {
        id: keys.signature_device_id,
        signatureDeviceType: keys.certificate ? 'CERTIFICATE' : 'PUBLIC_KEY',
        signatureCertificateOrPublicKey: keys.certificate ?? keys.public_key,
      },
    },
  };
}
