import { describe, expect, it } from 'vitest';
import {
  credentialState,
  credentialViolations,
  daysUntil,
  expiryReminderFrom,
  maskCredential,
  maskedCredentials,
  missingFields,
  passwordExpiresAt,
} from '../../src/domain/portalCredentials/credentialRules.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const SET = new Date('2026-01-10T08:00:00Z');

describe('masking', () => {
  it('shows the last 2 characters of ids, nothing of a PIN or password (not even their length)', () => {
    expect(maskCredential('user_id', 'RSSMRA85T10A562S')).toBe('**************2S');
    expect(maskCredential('tax_id_number', '123')).toBe('*23');
    expect(maskCredential('participant_id', 'AB')).toBe('**');
    expect(maskCredential('pin', '12')).toBe('********');
    expect(maskCredential('password', 'a much longer password')).toBe('********');
    expect(maskedCredentials({ user_id: 'abcdef', pin: '1234' })).toEqual({
      tax_id_number: null,
      participant_id: null,
      user_id: '****ef',
      pin: '********',
      password: null,
    });
  });
});

describe('password expiry', () => {
  it('Fisconline and Entratel passwords expire 90 days after they were set, with a reminder from day 60; FinanzOnline has none', () => {
    const expires = passwordExpiresAt('fisconline', SET)!;
    expect(expires.toISOString()).toBe(new Date(SET.getTime() + 90 * DAY_MS).toISOString());
    expect(expiryReminderFrom('fisconline', expires)?.toISOString()).toBe(new Date(SET.getTime() + 60 * DAY_MS).toISOString());
    expect(passwordExpiresAt('entratel', SET)?.getTime()).toBe(expires.getTime());
    expect(passwordExpiresAt('finanz_online', SET)).toBeNull();
    expect(passwordExpiresAt('fisconline', null)).toBeNull();
    expect(daysUntil(expires, new Date(SET.getTime() + 60 * DAY_MS))).toBe(30);
  });

  it('the state is expired from expires_at on, whatever the validation said', () => {
    const expires = passwordExpiresAt('fisconline', SET)!;
    expect(credentialState('valid', expires, new Date(expires.getTime() - 1))).toBe('valid');
    expect(credentialState('valid', expires, expires)).toBe('expired');
    expect(credentialState('invalid', null, new Date('2099-01-01'))).toBe('invalid');
  });
});

describe('rules', () => {
  it('a portal has one jurisdiction; Italian portals log in with a fiscal code', () => {
    expect(credentialViolations('fisconline', { jurisdiction: 'IT', credentials: { user_id: 'RSSMRA85T10A562S' } })).toEqual([]);
    expect(credentialViolations('finanz_online', { jurisdiction: 'IT' })).toEqual([
      { code: 'validation_error', field: 'jurisdiction', message: 'finanz_online is a portal of jurisdiction AT, not IT' },
    ]);
    expect(credentialViolations('entratel', { credentials: { user_id: 'mario' } })[0]).toMatchObject({
      code: 'regime_validation_failed',
      field: 'credentials.user_id',
    });
    expect(credentialViolations('finanz_online', { credentials: { user_id: 'mario' } })).toEqual([]);
  });

  it('names what a portal needs and a credential lacks', () => {
    expect(missingFields('fisconline', new Set(['user_id']))).toEqual(['password', 'pin']);
    expect(missingFields('finanz_online', new Set(['participant_id', 'user_id', 'pin']))).toEqual([]);
  });
});
