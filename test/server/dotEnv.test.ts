// `npm start`, the CLI and the worker read `.env` when it is present (as .env.example suggests);
// what the environment already sets wins over the file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentWithDotEnv, loadConfig } from '../../src/config.js';

describe('.env', () => {
  it('fills in what the environment does not set, and never overrides it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fiscal-dotenv-'));
    const path = join(dir, '.env');
    writeFileSync(path, 'FISCAL_DOTENV_ONLY=from-file\nFISCAL_DOTENV_BOTH=from-file\nRATE_LIMIT_PER_SECOND=77\n');
    process.env.FISCAL_DOTENV_BOTH = 'from-environment';
    const env = environmentWithDotEnv(path);
    expect(env.FISCAL_DOTENV_ONLY).toBe('from-file');
    expect(env.FISCAL_DOTENV_BOTH).toBe('from-environment');
    expect(loadConfig(env).rateLimitPerSecond).toBe(77);
  });

  it('is optional', () => {
    expect(() => environmentWithDotEnv(join(tmpdir(), 'no-such-dir', '.env'))).not.toThrow();
  });
});
