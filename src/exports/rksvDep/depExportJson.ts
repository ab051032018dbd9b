/** What signed the receipts of the group: a trust service's certificate and its issuers, or nothing (a closed system's public key). */
export interface DepSigner {
  certificate: string | null;
  certificateChain: string[];
}

/** A closed system signs with a public key the crypto-material container lists: no certificate, no CAs. */
export const CLOSED_SYSTEM_SIGNER: DepSigner = { certificate: null, certificateChain: [] };

/**
 * dep-export.json (reference rksv.md §7.1) as text, written while the
 * receipts are read: one group, since each register signs with one key for
 * life; a closed system (R1-AT0) has no certificate (`""`) and no CA chain
 * (`[]`), a trust service's unit its certificate and the CAs that issued it;
 * `Belege-kompakt` holds the compact JWS of every receipt, in the order of
 * `pages`, one per line.
 */
export async function* depExportJson(pages: AsyncIterable<string[]>, signer: DepSigner = CLOSED_SYSTEM_SIGNER): AsyncGenerator<string> {
  yield `{"Belege-Gruppe":[{"Signaturzertifikat":${JSON.stringify(signer.certificate ?? '')},"Zertifizierungsstellen":${JSON.stringify(signer.certificateChain)},"Belege-kompakt":[`;
  let first = true;
  for await (const page of pages) {
    if (!page.length) continue;
    yield `${first ? '' : ','}\n${page.map((jws) => JSON.stringify(jws)).join(',\n')}`;
    first = false;
  }
  yield `${first ? '' : '\n'}]}]}\n`;
}
