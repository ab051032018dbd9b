import type { BuiltInvoiceDocument } from './einvoiceFormat.js';

/** The organization's fiscal certificate that signs a document, and its private key. */
export interface SigningKeyMaterial {
  certificateDer: Buffer;
  /** PKCS#8 PEM. */
  privateKeyPem: string;
}

/** A signed document as it is stored, served and transmitted. */
export interface SignedInvoiceDocument {
  document: Buffer<ArrayBuffer>;
  fileName: string;
  /** What `fiscal.jurisdiction_data.signature` says about the signature. */
  signature: Record<string, unknown>;
}

/**
 * How a jurisdiction signs its documents with the organization's fiscal certificate (DESIGN
 * "Fiscal certificates and portal credentials"): every document when a certificate that can
 * sign is active, and some documents only with one.
 */
export interface DocumentSigning {
  /** The request field that makes this document need a signature (FatturaPA FPA12: `routing.codice_destinatario`), or null. */
  requiredBy(built: BuiltInvoiceDocument): string | null;
  sign(built: BuiltInvoiceDocument, key: SigningKeyMaterial, at: Date): Promise<SignedInvoiceDocument>;
}
