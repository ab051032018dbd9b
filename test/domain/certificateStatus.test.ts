import { describe, expect, it } from 'vitest';
import { certificateStanding, certificateStatus, signingCertificate } from '../../src/domain/certificates/certificateStatus.js';
import { dueReminder } from '../../src/domain/certificates/renewalReminders.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-06-01T12:00:00Z');
const inDays = (days: number) => new Date(NOW.getTime() + days * DAY_MS);

describe('certificateStatus', () => {
  it('is revoked once revoked, else expired after valid_until, else active', () => {
    expect(certificateStatus({ validUntil: inDays(10), revokedAt: null }, NOW)).toBe('active');
    expect(certificateStatus({ validUntil: NOW, revokedAt: null }, NOW)).toBe('active');
    expect(certificateStatus({ validUntil: new Date(NOW.getTime() - 1), revokedAt: null }, NOW)).toBe('expired');
    expect(certificateStatus({ validUntil: inDays(10), revokedAt: inDays(-1) }, NOW)).toBe('revoked');
    expect(certificateStatus({ validUntil: inDays(-10), revokedAt: inDays(-1) }, NOW)).toBe('revoked');
  });
});

describe('certificateStanding', () => {
  it('tells no certificates, none active, or active', () => {
    expect(certificateStanding([], NOW)).toBe('no_certificates');
    expect(certificateStanding([{ validUntil: inDays(-1), revokedAt: null }, { validUntil: inDays(5), revokedAt: inDays(-2) }], NOW)).toBe('none_active');
    expect(certificateStanding([{ validUntil: inDays(-1), revokedAt: null }, { validUntil: inDays(5), revokedAt: null }], NOW)).toBe('active');
  });
});

describe('signingCertificate', () => {
  it('is the active certificate with a key that is valid longest', () => {
    const old = { id: 'old', validUntil: inDays(10), revokedAt: null, hasPrivateKey: true };
    const renewed = { id: 'renewed', validUntil: inDays(400), revokedAt: null, hasPrivateKey: true };
    const keyless = { id: 'keyless', validUntil: inDays(900), revokedAt: null, hasPrivateKey: false };
    const revoked = { id: 'revoked', validUntil: inDays(800), revokedAt: inDays(-1), hasPrivateKey: true };
    expect(signingCertificate([old, renewed, keyless, revoked], NOW)?.id).toBe('renewed');
    expect(signingCertificate([keyless, revoked], NOW)).toBeNull();
    expect(signingCertificate([{ ...old, validUntil: inDays(-1) }], NOW)).toBeNull();
  });
});

describe('dueReminder', () => {
  it('is the nearest threshold the remaining time reached, with the days left rounded up', () => {
    expect(dueReminder(inDays(61), NOW)).toBeNull();
    expect(dueReminder(inDays(60), NOW)).toEqual({ thresholdDays: 60, daysLeft: 60 });
    expect(dueReminder(new Date(inDays(60).getTime() - 1000), NOW)).toEqual({ thresholdDays: 60, daysLeft: 60 });
    expect(dueReminder(inDays(30.5), NOW)).toEqual({ thresholdDays: 60, daysLeft: 31 });
    expect(dueReminder(inDays(30), NOW)).toEqual({ thresholdDays: 30, daysLeft: 30 });
    expect(dueReminder(inDays(8), NOW)).toEqual({ thresholdDays: 30, daysLeft: 8 });
    expect(dueReminder(inDays(7), NOW)).toEqual({ thresholdDays: 7, daysLeft: 7 });
    expect(dueReminder(inDays(0.25), NOW)).toEqual({ thresholdDays: 7, daysLeft: 1 });
  });

  it('a certificate seen late (uploaded or after downtime) gets one reminder: the nearest, not every threshold passed', () => {
    expect(dueReminder(inDays(5), NOW)).toEqual({ thresholdDays: 7, daysLeft: 5 });
  });

  it('none once expired', () => {
    expect(dueReminder(NOW, NOW)).toBeNull();
    expect(dueReminder(inDays(-3), NOW)).toBeNull();
  });
});
