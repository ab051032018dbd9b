import { signedDataOf } from './cms.js';

/** The content a CMS SignedData (a `.p7m` file) encloses; throws when the bytes are not one or enclose nothing. */
export function signedContentOf(p7m: Uint8Array): Buffer {
  const content = signedDataOf(p7m).encapContentInfo.eContent;
  if (!content) throw new Error('the SignedData encloses no content');
  return Buffer.from(content.getValue());
}
