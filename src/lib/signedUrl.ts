import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** HMAC-signed, expiring links (export downloads): the link itself is the credential. */
export class UrlSigner {
  constructor(private readonly key: Buffer) {}

  private signature(resource: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${resource}\n${expires}`).digest('base64url');
  }

  sign(resource: string, ttlSeconds: number, now = Date.now()): { expires: number; signature: string } {
    const expires = Math.floor(now / 1000) + ttlSeconds;
    return { expires, signature: this.signature(resource, expires) };
  }

  verify(resource: string, expires: number, signature: string, now = Date.now()): 'valid' | 'expired' | 'invalid' {
    const expected = Buffer.from(this.signature(resource, expires));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return expires * 1000 < now ? 'expired' : 'valid';
  }
}

/** The signer of export download links; its key is derived from SECRETS_KEY, so every instance and worker signs alike. */
export const exportLinkSigner = (secretsKey: Buffer): UrlSigner =>
  new UrlSigner(Buffer.from(hkdfSync('sha256', secretsKey, '', 'export-download-links', 32)));
