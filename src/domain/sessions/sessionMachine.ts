/** Register session state machine of contract 3.2. */

export type SessionStatus = 'open' | 'counted' | 'closed';

export const SESSION_EVENT_TYPES = [
  'session_open',
  'session_cash_adjustment',
  'session_cash_count',
  'session_close',
] as const;
export type SessionEventType = (typeof SESSION_EVENT_TYPES)[number];

/** A POS sale, return or exchange counts as one event for the session. */
export type SessionCheckedEvent = SessionEventType | 'goods_movement';

export type SessionConflictCode =
  | 'session_invalid_state'
  | 'session_not_counted'
  | 'session_already_counted'
  | 'no_open_session';

export type SessionCheck =
  | { ok: true; next: SessionStatus }
  | { ok: false; code: SessionConflictCode; message: string };

/**
 * Whether `event` may be posted on the register whose latest session is `current` (null when
 * the register never had one), and the session state it leads to. A closed session counts as
 * no session. Only POS goods movements are bound to a session; ONLINE ones never ask.
 */
export function checkSessionEvent(current: { status: SessionStatus } | null, event: SessionCheckedEvent): SessionCheck {
  const status = current?.status ?? 'closed';
  switch (status) {
    case 'closed':
      return event === 'session_open'
        ? { ok: true, next: 'open' }
        : { ok: false, code: 'no_open_session', message: 'The register has no open session.' };
    case 'open':
      return checkOnOpenSession(event);
    case 'counted':
      // Contract 7: "any post except close on a counted session", a second open included.
      return event === 'session_close'
        ? { ok: true, next: 'closed' }
        : { ok: false, code: 'session_already_counted', message: 'The session has been counted; only session_close is allowed.' };
  }
}

function checkOnOpenSession(event: SessionCheckedEvent): SessionCheck {
  switch (event) {
    case 'session_open':
      return { ok: false, code: 'session_invalid_state', message: 'A session is already open on this register.' };
    case 'session_close':
      return { ok: false, code: 'session_not_counted', message: 'The session must be counted before it is closed.' };
    case 'session_cash_count':
      return { ok: true, next: 'counted' };
    case 'session_cash_adjustment':
    case 'goods_movement':
      return { ok: true, next: 'open' };
  }
}

export type CompletionCheck = { ok: true } | { ok: false; code: SessionConflictCode; message: string };

/**
 * Whether an open operation bound to a session in state `status` may be completed. The cash count
 * fixes the drawer the session should hold and the close makes the session a cash point closing, so
 * a completion from the count on would sign into a day already counted or exported. Voiding (or
 * cancelling) needs no such rule: it moves no money and signs nothing.
 */
export function checkCompletionInSession(status: SessionStatus): CompletionCheck {
  switch (status) {
    case 'open':
      return { ok: true };
    case 'counted':
      return {
        ok: false,
        code: 'session_already_counted',
        message: "The operation's session has been counted; the operation can no longer be completed.",
      };
    case 'closed':
      return {
        ok: false,
        code: 'session_invalid_state',
        message: "The operation's session is closed; the operation can no longer be completed.",
      };
  }
}
