import * as pkijs from 'pkijs';

/** The content a CMS SignedData (a `.p7m` file) encloses; throws when the bytes are not one or enclose nothing. */
export function signedContentOf(p7m: Uint8Array): Buffer {
  const contentInfo = pkijs.ContentInfo.fromBER(p7m.buffer.slice(p7m.byteOffset, p7m.byteOffset + p7m.byteLength) as ArrayBuffer);
  if (contentInfo.contentType !== pkijs.ContentInfo.SIGNED_DATA) throw new Error('not a CMS SignedData');
  const content = new pkijs.SignedData({ schema: contentInfo.content }).encapContentInfo.eContent;
  if (!content) throw new Error('the SignedData encloses no content');
  return Buffer.from(content.getValue());
}
