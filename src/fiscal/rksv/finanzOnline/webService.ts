import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { backoffDelayMs } from '../../../domain/backoff.js';
import type {
  FinanzOnlineAnswer,
  FinanzOnlineAuthority,
  FinanzOnlineLogin,
  FinanzOnlineRequest,
  ReceiptCheck,
  SubmissionContext,
} from './authority.js';
import {
  loginEnvelope,
  logoutEnvelope,
  parseLoginAnswer,
  parseRkdbAnswer,
  rkdbEnvelope,
  soapFaultOf,
  type RkdbAnswer,
  type SoapReading,
  type Transmission,
  type Verification,
} from './rkdbXml.js';

export const FINANZONLINE_BASE_URL = 'https://finanzonline.bmf.gv.at/fonws/ws';

export interface FinanzOnlineWebServiceOptions {
  /** Where the `session` and `rkdb` endpoints live; the BMF's production host unless given. */
  baseUrl?: string;
  /** herstellerid: the software vendor's UID, sent with every login. */
  vendorUid: string;
  /** art_uebermittlung: T test, P production. */
  transmission: Transmission;
  /** The whole of one submit: logins, the request, a repeat after an expired session, retries. */
  timeoutMs: number;
}

/** Tries per HTTP call for 5xx answers and lost connections, all within the timeout. */
const MAX_TRIES = 3;
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 400;
/** The longest message an answer carries. */
const MAX_MESSAGE_LENGTH = 300;

/** Login rc -4..-8: the credential, the user or the participant is refused. */
const LOGIN_REFUSED_RCS = new Set([-4, -5, -6, -7, -8]);
/** Login rc -1..-3 (session trouble, maintenance, technical error): the service's own, it passes. */
const LOGIN_UNAVAILABLE_RCS = new Set([-1, -2, -3]);

/** rkdb rc "-1": the session is unknown or expired; log in again. */
const RKDB_SESSION_INVALID = '-1';
/** rkdb rc "-2" maintenance, "-3" technical error. */
const RKDB_UNAVAILABLE_RCS = new Set(['-2', '-3']);
/** rkdb rc "-4": the participant may not use this function. */
const RKDB_NOT_ENTITLED = '-4';
/**
 * Business codes saying the request was already carried out: cash register
 * registered (B1), unit stored (B10), public key present (B28), status set (B13).
 * They arise when an earlier answer was lost, so the request counts as accepted.
 */
const ALREADY_DONE_RCS = new Set(['B1', 'B10', 'B28', 'B13']);

type Endpoint = 'session' | 'rkdb';

/** The time left for one submit: its deadline and the signal that ends it (the caller's or the timeout). */
interface Budget {
  deadline: number;
  signal: AbortSignal;
}

/** An answer other than `accepted` reached before the request could complete; submit returns it. */
class Interrupted extends Error {
  constructor(readonly answer: FinanzOnlineAnswer) {
    // The code only: the BMF's text may echo the PIN until it is redacted on the way out.
    super(answer.code);
  }
}

const unavailable = (code: string, message: string): Interrupted => new Interrupted({ outcome: 'unavailable', code, message });
const timedOut = (): Interrupted => unavailable('TIMEOUT', 'FinanzOnline did not answer in time');

/** An undici error's code (ECONNREFUSED, UND_ERR_SOCKET): it names no path, body or credential. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown error';
}

/** The one message an rkdb answer is judged by: a technical code first, then a business refusal, then a repeat, then success. */
function decisiveMessage(messages: RkdbAnswer['messages']): RkdbAnswer['messages'][number] {
  const rank = ({ rc }: { rc: string }): number =>
    rc.startsWith('-') ? 0 : rc === '0' ? 3 : ALREADY_DONE_RCS.has(rc) ? 2 : 1;
  return messages.reduce((decisive, message) => (rank(message) < rank(decisive) ? message : decisive));
}

/** Passed when no verification failed and at least one ran and passed. */
function receiptCheckOf(verifications: Verification[] | null): ReceiptCheck {
  const results = verifications ?? [];
  const passed = results.every((result) => result.state !== 'FAIL') && results.some((result) => result.state === 'PASS');
  return { passed, results };
}

/**
 * The BMF's FinanzOnline web services for RKSV registration: a session
 * login per web service user (cached per participant, user and PIN and
 * reused until the BMF says it expired), then one rkdb request per submit.
 * 5xx answers and lost connections are retried within the timeout; a
 * business answer never is. Nothing here logs, and no returned text carries
 * the PIN.
 */
export class FinanzOnlineWebService implements FinanzOnlineAuthority {
  private readonly baseUrl: string;
  private readonly vendorUid: string;
  private readonly transmission: Transmission;
  private readonly timeoutMs: number;
  /** Session ids by login; the login is kept to log the session out. */
  private readonly sessions = new Map<string, { login: FinanzOnlineLogin; sessionId: string }>();

  constructor(options: FinanzOnlineWebServiceOptions) {
    this.baseUrl = (options.baseUrl ?? FINANZONLINE_BASE_URL).replace(/\/+$/, '');
    this.vendorUid = options.vendorUid;
    this.transmission = options.transmission;
    this.timeoutMs = options.timeoutMs;
  }

  async submit(login: FinanzOnlineLogin | null, request: FinanzOnlineRequest, context: SubmissionContext): Promise<FinanzOnlineAnswer> {
    if (login === null) {
      return { outcome: 'login_refused', code: 'NO_CREDENTIAL', message: 'No FinanzOnline web service user is stored' };
    }
    const budget: Budget = {
      deadline: Date.now() + this.timeoutMs,
      signal: AbortSignal.any([context.signal, AbortSignal.timeout(this.timeoutMs)]),
    };
    let answer: FinanzOnlineAnswer;
    try {
      answer = await this.submitInSession(login, request, context.packageNumber, budget);
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error;
      answer = error.answer;
    }
    return { ...answer, message: presentable(answer.message, login.pin) };
  }

  /** Logs out every cached session, as far as FinanzOnline answers within the timeout; the cache is emptied either way. */
  async close(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(
      sessions.map(async ({ login, sessionId }) => {
        const budget: Budget = { deadline: Date.now() + this.timeoutMs, signal: AbortSignal.timeout(this.timeoutMs) };
        // Whatever the answer (an already expired session included), there is nothing left to undo.
        try {
          await this.post('session', 'logout', logoutEnvelope(login, sessionId), budget);
        } catch (error) {
          if (!(error instanceof Interrupted)) throw error;
        }
      }),
    );
  }

  /** The request in a cached or new session; once the BMF calls the session expired, in one new session. */
  private async submitInSession(login: FinanzOnlineLogin, request: FinanzOnlineRequest, packageNumber: number, budget: Budget): Promise<FinanzOnlineAnswer> {
    const key = sessionKey(login);
    let sessionId = this.sessions.get(key)?.sessionId ?? (await this.logIn(login, budget));
    let answer = await this.rkdb(login, sessionId, request, packageNumber, budget);
    if (decisiveMessage(answer.messages).rc === RKDB_SESSION_INVALID) {
      this.forgetSession(key, sessionId);
      sessionId = await this.logIn(login, budget);
      answer = await this.rkdb(login, sessionId, request, packageNumber, budget);
    }
    const decisive = decisiveMessage(answer.messages);
    const said = { code: decisive.rc, message: decisive.message || `FinanzOnline answered rc ${decisive.rc}` };
    if (decisive.rc === RKDB_SESSION_INVALID) {
      this.forgetSession(key, sessionId);
      return { outcome: 'unavailable', ...said };
    }
    if (RKDB_UNAVAILABLE_RCS.has(decisive.rc)) return { outcome: 'unavailable', ...said };
    if (decisive.rc === RKDB_NOT_ENTITLED) return { outcome: 'login_refused', ...said };
    if (decisive.rc !== '0' && !ALREADY_DONE_RCS.has(decisive.rc)) return { outcome: 'rejected', ...said };
    return { outcome: 'accepted', ...said, check: request.type === 'check_receipt' ? receiptCheckOf(answer.verifications) : null };
  }

  /** A new session id, cached for the login. */
  private async logIn(login: FinanzOnlineLogin, budget: Budget): Promise<string> {
    const body = await this.post('session', 'login', loginEnvelope(login, this.vendorUid), budget);
    const { rc, sessionId, message } = answerOf(parseLoginAnswer(body));
    if (rc === 0 && sessionId) {
      this.sessions.set(sessionKey(login), { login, sessionId });
      return sessionId;
    }
    const said = { code: String(rc), message: message || `FinanzOnline refused the login (rc ${rc})` };
    if (LOGIN_REFUSED_RCS.has(rc)) throw new Interrupted({ outcome: 'login_refused', ...said });
    if (LOGIN_UNAVAILABLE_RCS.has(rc)) throw new Interrupted({ outcome: 'unavailable', ...said });
    throw unavailable('MALFORMED', `FinanzOnline answered the login with an unknown rc ${rc}`);
  }

  private async rkdb(login: FinanzOnlineLogin, sessionId: string, request: FinanzOnlineRequest, packageNumber: number, budget: Budget): Promise<RkdbAnswer> {
    const envelope = rkdbEnvelope({ login, sessionId, transmission: this.transmission, packageNumber, createdAt: new Date(), request });
    return answerOf(parseRkdbAnswer(await this.post('rkdb', 'rkdb', envelope, budget)));
  }

  /** Drops the cached session unless a concurrent submit has already replaced it. */
  private forgetSession(key: string, sessionId: string): void {
    if (this.sessions.get(key)?.sessionId === sessionId) this.sessions.delete(key);
  }

  /**
   * One SOAP call; the body of its 2xx answer. 5xx answers and lost
   * connections are tried again with backoff while tries and time last (a
   * repeat is harmless: FinanzOnline answers a repeated registration with
   * B1/B10/B28); a SOAP Fault is the service's answer and is not.
   */
  private async post(endpoint: Endpoint, action: string, envelope: string, budget: Budget): Promise<string> {
    for (let tries = 1; ; tries += 1) {
      if (budget.signal.aborted) throw timedOut();
      let failure: Interrupted;
      try {
        const response = await request(`${this.baseUrl}/${endpoint}`, {
          method: 'POST',
          headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: action },
          body: envelope,
          signal: budget.signal,
        });
        const body = await response.body.text();
        const fault = soapFaultOf(body);
        if (fault) throw unavailable('SOAP_FAULT', `FinanzOnline answered a SOAP Fault: ${fault.faultString || fault.faultCode || 'without a reason'}`);
        if (response.statusCode >= 200 && response.statusCode < 300) return body;
        failure = unavailable(`HTTP_${response.statusCode}`, `FinanzOnline answered HTTP ${response.statusCode}`);
        if (response.statusCode < 500) throw failure;
      } catch (error) {
        if (error instanceof Interrupted) throw error;
        if (budget.signal.aborted) throw timedOut();
        failure = unavailable('UNREACHABLE', `FinanzOnline cannot be reached (${errorCode(error)})`);
      }
      const waitMs = backoffDelayMs(tries, FIRST_BACKOFF_MS, MAX_BACKOFF_MS);
      if (tries >= MAX_TRIES || Date.now() + waitMs >= budget.deadline) throw failure;
      await sleep(waitMs, undefined, { signal: budget.signal }).catch(() => {
        throw timedOut();
      });
    }
  }
}

/** The BMF's text as an answer carries it: trimmed, at most 300 characters, the PIN cut out should it be echoed. */
function presentable(message: string, pin: string): string {
  const redacted = pin ? message.split(pin).join('[redacted]') : message;
  return redacted.trim().slice(0, MAX_MESSAGE_LENGTH);
}

/** The cache key of a login; the PIN is part of it so that a changed PIN logs in anew. */
function sessionKey(login: FinanzOnlineLogin): string {
  return JSON.stringify([login.participantId, login.userId, login.pin]);
}

/** A parsed answer's content; a fault or unreadable body ends the submit as unavailable. */
function answerOf<T>(reading: SoapReading<T>): T {
  if (reading.kind === 'answer') return reading.answer;
  if (reading.kind === 'fault') throw unavailable('SOAP_FAULT', `FinanzOnline answered a SOAP Fault: ${reading.faultString || reading.faultCode || 'without a reason'}`);
  throw unavailable('MALFORMED', `FinanzOnline's answer cannot be read: ${reading.reason}`);
}
