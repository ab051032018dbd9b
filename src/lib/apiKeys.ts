import { createHash } from 'node:crypto';
import { randomBase62 } from './ids.js';

export type KeyEnvironment = 'test' | 'live';
export type KeyKind = 'tenant' | 'organization' | 'platform';

export interface ParsedApiKey {
  environment: KeyEnvironment;
  /** Lowercase alpha-3 country of a tenant or organization key; null for platform keys. */
  country: string | null;
  platform: boolean;
}

const SCOPED_KEY = /^svc_(test|live)_([a-z]{3})_([0-9A-Za-z]{22,128})$/;
const PLATFORM_KEY = /^svc_platform_(test|live)_([0-9A-Za-z]{22,128})$/;
const RANDOM_LENGTH = 32; // 32 base62 characters carry about 190 bits

/** Recognises the key formats of contract section 5.2; anything else is malformed. */
export function parseApiKey(key: string): ParsedApiKey | null {
  const platform = PLATFORM_KEY.exec(key);
  if (platform) return { environment: platform[1] as KeyEnvironment, country: null, platform: true };
  const scoped = SCOPED_KEY.exec(key);
  if (scoped) return { environment: scoped[1] as KeyEnvironment, country: scoped[2], platform: false };
  return null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(kind: KeyKind, environment: KeyEnvironment, countryCode?: string): { apiKey: string; prefix: string } {
  const random = randomBase62(RANDOM_LENGTH);
  const head = kind === 'platform' ? `svc_platform_${environment}_` : `svc_${environment}_${countryCode!.toLowerCase()}_`;
  return { apiKey: head + random, prefix: head + random.slice(0, 8) };
}

export const environmentOfService = (serviceEnv: 'sandbox' | 'production'): KeyEnvironment =>
  serviceEnv === 'production' ? 'live' : 'test';
