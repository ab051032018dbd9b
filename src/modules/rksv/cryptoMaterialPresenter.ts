import type { CryptographicMaterialContainer } from '../../fiscal/rksv/cryptoMaterial.js';
import type { RksvCryptoMaterialView } from './cryptoMaterialSchemas.js';

/** The container as the BMF verifier takes it (reference rksv.md §7.2): the same object as the file in a DEP export. */
export function presentCryptoMaterial(container: CryptographicMaterialContainer): RksvCryptoMaterialView {
  return {
    base64AESKey: container.base64AESKey,
    certificateOrPublicKeyMap: Object.fromEntries(
      Object.entries(container.certificateOrPublicKeyMap).map(([id, key]) => [
        id,
        { id: key.id, signatureDeviceType: key.signatureDeviceType, signatureCertificateOrPublicKey: key.signatureCertificateOrPublicKey },
      ]),
    ),
  };
}
