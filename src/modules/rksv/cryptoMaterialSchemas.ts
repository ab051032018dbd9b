import { z } from 'zod';

const SignatureDeviceKey = z.object({
  id: z.string().describe('The signature device id, field 11 of every receipt: <Ordnungsbegriff>-<key id>, or the certificate serial'),
  signatureDeviceType: z
    .enum(['PUBLIC_KEY', 'CERTIFICATE'])
    .describe('PUBLIC_KEY: a closed system (suite R1-AT0) signing with a key pair; CERTIFICATE: a trust service’s unit (R1-AT1)'),
  signatureCertificateOrPublicKey: z.string().describe('Base64 DER SubjectPublicKeyInfo (RFC 5480), or base64 DER X.509 certificate'),
});

/** cryptographicMaterialContainer.json, field names as the BMF verification tool reads them. */
export const RksvCryptoMaterial = z
  .object({
    base64AESKey: z.string().describe('The register\'s AES-256 key, standard base64: it decrypts the turnover counters'),
    certificateOrPublicKeyMap: z.record(z.string(), SignatureDeviceKey).describe('The register\'s signature device, keyed by its id'),
  })
  .meta({ id: 'RksvCryptoMaterial' });

export type RksvCryptoMaterialView = z.infer<typeof RksvCryptoMaterial>;
