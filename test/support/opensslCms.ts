import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What `openssl cms -verify -noverify` makes of a `.p7m` file, as a receiver would check it: the
 * content it encloses when the signature over it verifies; throws (openssl's message) when not.
 * -noverify: the test certificates chain to no trusted root; the signature itself is checked.
 */
export function opensslVerifiedContent(p7m: Buffer): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'cades-'));
  try {
    const file = join(dir, 'document.p7m');
    writeFileSync(file, p7m);
    return execFileSync('openssl', ['cms', '-verify', '-inform', 'DER', '-noverify', '-binary', '-in', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `openssl cms -cmsout -print` of a `.p7m` file: its structure as text, signed attributes included. */
export function opensslCmsPrint(p7m: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'cades-'));
  try {
    const file = join(dir, 'document.p7m');
    writeFileSync(file, p7m);
    return execFileSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', file], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `openssl cms -sign` of `content`, attached, with the digest `md`: plain CMS, whose signed
 * attributes lack signing-certificate-v2, or with `cades` openssl's CAdES-BES, which has it.
 */
export function opensslSignedCms(content: Buffer, certificatePem: string, keyPem: string, options: { md?: string; cades?: boolean } = {}): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'cades-'));
  try {
    const files = { content: join(dir, 'content.xml'), certificate: join(dir, 'certificate.pem'), key: join(dir, 'key.pem') };
    writeFileSync(files.content, content);
    writeFileSync(files.certificate, certificatePem);
    writeFileSync(files.key, keyPem);
    const args = ['cms', '-sign', '-binary', '-nodetach', '-md', options.md ?? 'sha256', ...(options.cades ? ['-cades'] : []), '-outform', 'DER'];
    return execFileSync('openssl', [...args, '-in', files.content, '-signer', files.certificate, '-inkey', files.key], { stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
