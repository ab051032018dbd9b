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
