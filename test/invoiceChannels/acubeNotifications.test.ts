// The SdI's notifications as A-Cube lists them, mapped to the invoice's events
// (src/einvoicing/sdi/acube/acubeNotifications.ts), and which of them may be followed by more.
import { describe, expect, it } from 'vitest';
import { mayFollow, notificationOf } from '../../src/einvoicing/sdi/acube/acubeNotifications.js';

const listed = (type: string, message: Record<string, unknown> = {}) => ({ uuid: 'n-1', created_at: '2026-12-05T08:00:00+00:00', type, message });

describe('A-Cube notifications', () => {
  it('maps RC to delivered, accepted after 15 days for a B2B invoice only', () => {
    expect(notificationOf(listed('RC'), 'FPR12')).toEqual({ kind: 'delivered', acceptedAfterDays: 15 });
    expect(notificationOf(listed('RC'), 'FPA12')).toEqual({ kind: 'delivered', acceptedAfterDays: null });
  });

  it("maps NS to rejected with the SdI's codes, whether lista_errori holds one Errore or several", () => {
    expect(notificationOf(listed('NS', { lista_errori: { Errore: { Codice: '00100', Descrizione: 'Certificato di firma scaduto' } } }), 'FPR12')).toEqual({
      kind: 'rejected',
      errors: [{ code: '00100', message: 'Certificato di firma scaduto' }],
    });
    expect(notificationOf(listed('NS', { lista_errori: { Errore: [{ Codice: '00305' }, { Codice: '00311', Descrizione: 'x' }] } }), 'FPR12')).toEqual({
      kind: 'rejected',
      errors: [{ code: '00305', message: 'Scarto' }, { code: '00311', message: 'x' }],
    });
    expect(notificationOf(listed('NS'), 'FPR12')).toMatchObject({ kind: 'rejected', errors: [{ code: 'NS' }] });
  });

  it('maps MC and AT to undeliverable, NE by its esito, DT to deadline_passed', () => {
    expect(notificationOf(listed('MC', { descrizione: 'Casella piena' }), 'FPR12')).toEqual({ kind: 'undeliverable', errors: [{ code: 'MC', message: 'Casella piena' }] });
    expect(notificationOf(listed('AT'), 'FPA12')).toMatchObject({ kind: 'undeliverable', errors: [{ code: 'AT' }] });
    expect(notificationOf(listed('NE', { esito_committente: { esito: 'EC01' } }), 'FPA12')).toEqual({ kind: 'recipient_accepted' });
    expect(notificationOf(listed('NE', { esito_committente: { esito: 'EC02', descrizione: 'Importo errato' } }), 'FPA12')).toEqual({
      kind: 'recipient_refused',
      errors: [{ code: 'EC02', message: 'Importo errato' }],
    });
    expect(notificationOf(listed('DT'), 'FPA12')).toEqual({ kind: 'deadline_passed' });
  });

  it('ignores what is not an outcome of the file: an NE without esito, other types', () => {
    expect(notificationOf(listed('NE'), 'FPA12')).toBeNull();
    expect(notificationOf(listed('EC'), 'FPA12')).toBeNull();
    expect(notificationOf(listed('SE'), 'FPA12')).toBeNull();
  });

  it("expects more only for a public administration's invoice after RC (NE, DT) or MC (AT)", () => {
    expect(mayFollow('RC', 'FPA12')).toBe(true);
    expect(mayFollow('MC', 'FPA12')).toBe(true);
    expect(mayFollow('RC', 'FPR12')).toBe(false);
    expect(mayFollow('MC', 'FPR12')).toBe(false);
    expect(mayFollow('NE', 'FPA12')).toBe(false);
    expect(mayFollow('NS', 'FPA12')).toBe(false);
  });
});
