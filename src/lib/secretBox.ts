import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** AES-256-GCM for secrets at rest (device keys, portal passwords): "v1:" iv.tag.ciphertext, base64. */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1:${iv.toString('base64')}.${cipher.getAuthTag().toString('base64')}.${body.toString('base64')}`;
  }

  open(sealed: string): string {
    const match = /^v1:([^.]+)\.([^.]+)\.(.*)$/.exec(sealed);
    if (!match) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(match[1], 'base64'));
    decipher.setAuthTag(Buffer.from(match[2], 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(match[3], 'base64')), decipher.final()]).toString('utf8');
  }
}

/**
 * The key comes from SECRETS_KEY. Only in the sandbox may it be generated
 * into DATA_DIR on first start; production refuses to run without one.
 */
export function loadSecretsKey(options: { secretsKey?: string; dataDir: string; environment: 'sandbox' | 'production' }): Buffer {
  if (options.secretsKey) return Buffer.from(options.secretsKey, 'hex');
  if (options.environment === 'production') throw new Error('SECRETS_KEY is required in production');
  const path = join(options.dataDir, 'secrets.key');
  if (existsSync(path)) return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
  mkdirSync(options.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(path, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  return key;
}
