import { z } from 'zod';

const SignatureDeviceKey = z.object({
  id: z.string().describe('The signature device id, field 11 of every receipt: <Ordnungsbegriff>-<key id>'),
  signatureDeviceType: z.literal('PUBLIC_KEY').describe('A closed system (suite R1-AT0) signs with a key pair, not a certificate'),
  signatureCertificateOrPublicKey: z.string().describe('The public key, base64 DER SubjectPublicKeyInfo (RFC 5480)'),
});

/** cryptographicMaterialContainer.json, field names as the BMF verification tool reads them. */
export const RksvCryptoMaterial = z
  .object({
    base64AESKey: z.string().describe('The register\'s AES-256 key, standard base64: it decrypts the turnover counters'),
    certificateOrPublicKeyMap: z.record(z.string(), SignatureDeviceKey).describe('The register\'s signature device, keyed by its id'),
  })
  .meta({ id: 'RksvCryptoMaterial' });

export type RksvCryptoMaterialView = z.infer<typeof RksvCryptoMaterial>;
