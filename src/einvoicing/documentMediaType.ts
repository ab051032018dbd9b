/** The media type a stored document is served as, by its file name: a CAdES `.p7m` envelope, else the XML itself. */
export const documentMediaTypeOf = (fileName: string): string => (fileName.endsWith('.p7m') ? 'application/pkcs7-mime' : 'application/xml');
