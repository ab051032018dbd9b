import { signCades } from '../cades/signCades.js';
import type { DocumentSigning } from '../documentSigning.js';

/**
 * FatturaPA files are signed CAdES-BES (`<name>.xml.p7m`, reference italy.md §10); an invoice to
 * a public administration (FPA12, routed by its 6-character codice destinatario) must be signed.
 */
export const fatturaPaSigning: DocumentSigning = {
  requiredBy: (built) => (built.jurisdictionData.format === 'FPA12' ? 'routing.codice_destinatario' : null),
  sign: async (built, key, at) => ({
    document: await signCades({ certificateDer: key.certificateDer, privateKeyPem: key.privateKeyPem, content: Buffer.from(built.xml, 'utf8'), signedAt: at }),
    fileName: `${built.fileName}.p7m`,
    signature: { format: 'CAdES-BES' },
  }),
};
