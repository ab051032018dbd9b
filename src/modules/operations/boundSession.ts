import { checkCompletionInSession, type SessionStatus } from '../../domain/sessions/sessionMachine.js';
import { conflict } from '../../domain/errors.js';

/**
 * The id and status of the session `sessionId` (a SQL expression) names,
 * locked for a completion into it. First the register row in KEY SHARE mode,
 * which conflicts only with the FOR UPDATE of every session event
 * (lockRegister): a cash count or close waits for the completions in flight
 * and counts them, a completion coming second waits for the count, and
 * creates' sequence-number UPDATEs and other completions pass. Then the
 * session row in SHARE mode: it conflicts with the count's or close's UPDATE
 * of that row, so READ COMMITTED locks and returns the version they committed
 * (a KEY SHARE lock would be granted on the old version, the key being
 * unchanged). Locks are taken in clause order, the register first, so a
 * completion never holds the session while a session event holds the register.
 */
export const lockedSessionOf = (sessionId: string) => `
  SELECT s.id, s.status
    FROM register_sessions s
    JOIN registers sr ON sr.id = s.register_id
   WHERE s.id = ${sessionId}
     FOR KEY SHARE OF sr
     FOR SHARE OF s`;

export interface BoundSession {
  id: string;
  status: string;
}

/** 409 unless an operation bound to `session` may be completed; an operation without a session (ONLINE) always may. */
export function assertCompletableInSession(session: BoundSession | null): void {
  if (!session) return;
  const check = checkCompletionInSession(session.status as SessionStatus);
  if (!check.ok) throw conflict(check.code, check.message, { session_id: session.id, session_status: session.status });
}
