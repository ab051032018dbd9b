import { describe, expect, it } from 'vitest';
import {
  checkCompletionInSession,
  checkSessionEvent,
  type SessionCheck,
  type SessionCheckedEvent,
  type SessionStatus,
} from '../../src/domain/sessions/sessionMachine.js';

const outcome = (check: SessionCheck) => (check.ok ? check.next : check.code);

// Rows: session state (none = no session ever); columns: the event posted.
const table: [SessionStatus | 'none', SessionCheckedEvent, string][] = [
  ['none', 'session_open', 'open'],
  ['none', 'session_cash_adjustment', 'no_open_session'],
  ['none', 'session_cash_count', 'no_open_session'],
  ['none', 'session_close', 'no_open_session'],
  ['none', 'goods_movement', 'no_open_session'],
  ['open', 'session_open', 'session_invalid_state'],
  ['open', 'session_cash_adjustment', 'open'],
  ['open', 'session_cash_count', 'counted'],
  ['open', 'session_close', 'session_not_counted'],
  ['open', 'goods_movement', 'open'],
  ['counted', 'session_open', 'session_already_counted'],
  ['counted', 'session_cash_adjustment', 'session_already_counted'],
  ['counted', 'session_cash_count', 'session_already_counted'],
  ['counted', 'session_close', 'closed'],
  ['counted', 'goods_movement', 'session_already_counted'],
  ['closed', 'session_open', 'open'],
  ['closed', 'session_cash_adjustment', 'no_open_session'],
  ['closed', 'session_cash_count', 'no_open_session'],
  ['closed', 'session_close', 'no_open_session'],
  ['closed', 'goods_movement', 'no_open_session'],
];

describe('checkSessionEvent', () => {
  it.each(table)('%s + %s -> %s', (state, event, expected) => {
    expect(outcome(checkSessionEvent(state === 'none' ? null : { status: state }, event))).toBe(expected);
  });

  it('explains a rejection', () => {
    const check = checkSessionEvent({ status: 'open' }, 'session_close');
    expect(check).toEqual({ ok: false, code: 'session_not_counted', message: expect.stringMatching(/counted/) });
  });

  it('walks a whole shift', () => {
    let session: { status: SessionStatus } | null = null;
    for (const event of [
      'session_open',
      'goods_movement',
      'session_cash_adjustment',
      'session_cash_count',
      'session_close',
    ] as const) {
      const check = checkSessionEvent(session, event);
      if (!check.ok) throw new Error(`${event} rejected: ${check.code}`);
      session = { status: check.next };
    }
    expect(session).toEqual({ status: 'closed' });
  });
});

describe('checkCompletionInSession', () => {
  it.each([
    ['open', 'ok'],
    ['counted', 'session_already_counted'],
    ['closed', 'session_invalid_state'],
  ] as const)('an operation of a session %s -> %s', (status, expected) => {
    const check = checkCompletionInSession(status);
    expect(check.ok ? 'ok' : check.code).toBe(expected);
  });

  it('explains a rejection', () => {
    expect(checkCompletionInSession('counted')).toEqual({ ok: false, code: 'session_already_counted', message: expect.stringMatching(/counted/) });
  });
});
