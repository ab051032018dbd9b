/**
 * dep-export.json (reference rksv.md §7.1) as text, written while the
 * receipts are read: one group, since each register signs with one key for
 * life; a closed system (R1-AT0) has no certificate (`""`) and no CA chain
 * (`[]`); `Belege-kompakt` holds the compact JWS of every receipt, in the
 * order of `pages`, one per line.
 */
export async function* depExportJson(pages: AsyncIterable<string[]>): AsyncGenerator<string> {
  yield '{"Belege-Gruppe":[{"Signaturzertifikat":"","Zertifizierungsstellen":[],"Belege-kompakt":[';
  let first = true;
  for await (const page of pages) {
    if (!page.length) continue;
    yield `${first ? '' : ','}\n${page.map((jws) => JSON.stringify(jws)).join(',\n')}`;
    first = false;
  }
  yield `${first ? '' : '\n'}]}]}\n`;
}
