import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { backoffDelayMs } from '../../../domain/backoff.js';
import type { FiskalyConnection } from './connection.js';
import type { CallBudget } from '../../callBudget.js';
import { answerOf, parsedJson, type HttpAnswer } from '../../../lib/httpAnswer.js';

/**
 * How a call to fiskaly failed, after the client's own retries:
 * - `unauthorized`: the credentials were refused, also with a fresh token;
 * - `rate_limited`: fiskaly asked to wait longer than the call's budget leaves;
 * - `unavailable`: fiskaly answered 5xx on every try;
 * - `unreachable`: no answer came (connection refused, reset, DNS);
 * - `timeout`: the budget ran out while waiting;
 * - `rejected`: fiskaly refused the request (any other 4xx), naming its error code.
 */
export type FiskalyFailureKind = 'unauthorized' | 'rate_limited' | 'unavailable' | 'unreachable' | 'timeout' | 'rejected';

/** A failed call. Its message names the method, the path and fiskaly's answer, never a credential. */
export class FiskalyApiError extends Error {
  constructor(
    readonly kind: FiskalyFailureKind,
    message: string,
    /** The HTTP status fiskaly answered, when it answered. */
    readonly status: number | null = null,
    /** fiskaly's `code` (E_...), when its answer had one. */
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'FiskalyApiError';
  }
}

/** Tries per request for 5xx, 429 and lost connections, all within the budget. */
const MAX_TRIES = 4;
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1000;
/** A token this close to its expiry is renewed before use rather than sent. */
const TOKEN_EXPIRY_MARGIN_MS = 10_000;

interface Token {
  value: string;
  expiresAt: number;
}

interface AuthAnswer {
  access_token?: unknown;
  access_token_expires_at?: unknown;
  access_token_expires_in?: unknown;
}

/** fiskaly's error body `{status_code, error, code, message}`, as far as it has one. */
function vendorError(body: unknown): { code: string | null; message: string | null } {
  if (typeof body !== 'object' || body === null) return { code: null, message: null };
  const { code, message } = body as { code?: unknown; message?: unknown };
  return { code: typeof code === 'string' ? code : null, message: typeof message === 'string' ? message : null };
}

/** An undici error as a log can show it: its code and message (they name host and port, never a header). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/**
 * fiskaly SIGN DE v2 over HTTP: a bearer token from `POST /auth`, kept in
 * memory until shortly before it expires and renewed once, transparently, when
 * fiskaly answers 401 anyway; 5xx, 429 (after its Retry-After) and lost
 * connections are retried with backoff while the budget lasts. Every request
 * the driver sends is idempotent (a PUT of a revision it names, or a GET), so
 * repeating one whose answer was lost is safe.
 */
export class FiskalyClient {
  private token: Token | null = null;

  constructor(private readonly connection: FiskalyConnection) {}

  get tssId(): string {
    return this.connection.tssId;
  }

  /** A JSON request under `/api/v2` with the bearer token; its 2xx answer's body. */
  async call<T>(method: 'GET' | 'PUT', path: string, body: unknown, budget: CallBudget): Promise<T> {
    let renewed = false;
    for (;;) {
      const token = await this.validToken(budget);
      const answer = await this.send(method, path, body, token, budget);
      if (answer.status === 401 && !renewed) {
        // Expired or revoked early (fiskaly's clock, a key rotated): one fresh token, then the answer stands.
        if (this.token?.value === token) this.token = null;
        renewed = true;
        continue;
      }
      return this.accepted<T>(method, path, answer);
    }
  }

  /**
   * A file under `/api/v2` (an export's TAR): its body as it arrives, for the
   * caller to pipe on. The token is renewed once on 401, as for JSON calls; a
   * refusal is read and thrown as one. Not retried: a body half streamed
   * cannot be taken back, so the caller's job repeats the whole download.
   */
  async download(path: string, budget: CallBudget): Promise<Readable> {
    let renewed = false;
    for (;;) {
      const token = await this.validToken(budget);
      const response = await request(`${this.connection.apiUrl}${path}`, {
        method: 'GET',
        headers: { accept: 'application/x-tar, application/octet-stream', authorization: `Bearer ${token}` },
        signal: budget.signal,
      });
      if (response.statusCode >= 200 && response.statusCode < 300) return response.body;
      const answer: HttpAnswer = { status: response.statusCode, retryAfterMs: null, body: parsedJson(await response.body.text()) };
      if (answer.status === 401 && !renewed) {
        if (this.token?.value === token) this.token = null;
        renewed = true;
        continue;
      }
      return this.accepted<never>('GET', path, answer);
    }
  }

  private async validToken(budget: CallBudget): Promise<string> {
    if (this.token && this.token.expiresAt - TOKEN_EXPIRY_MARGIN_MS > Date.now()) return this.token.value;
    const answer = await this.send('POST', '/auth', { api_key: this.connection.apiKey, api_secret: this.connection.apiSecret }, null, budget);
    const auth = this.accepted<AuthAnswer>('POST', '/auth', answer);
    if (typeof auth.access_token !== 'string') throw new FiskalyApiError('unauthorized', 'fiskaly POST /auth answered without an access_token');
    this.token = { value: auth.access_token, expiresAt: expiryOf(auth) };
    return this.token.value;
  }

  /** The body of a 2xx answer, or the failure it is. */
  private accepted<T>(method: string, path: string, answer: HttpAnswer): T {
    if (answer.status >= 200 && answer.status < 300) return answer.body as T;
    const { code, message } = vendorError(answer.body);
    const said = `fiskaly ${method} ${path} answered ${answer.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
    const kind: FiskalyFailureKind =
      answer.status === 401 ? 'unauthorized' : answer.status === 429 ? 'rate_limited' : answer.status >= 500 ? 'unavailable' : 'rejected';
    throw new FiskalyApiError(kind, this.withoutCredentials(said), answer.status, code);
  }

  /** What fiskaly or the network said, as errors and logs may carry it: should it echo a credential, that is cut out. */
  private withoutCredentials(text: string): string {
    return [this.connection.apiKey, this.connection.apiSecret].reduce((said, secret) => (secret ? said.split(secret).join('[redacted]') : said), text);
  }

  /** One request, repeated on 5xx, 429 and lost connections while tries and budget last; any other answer is returned. */
  private async send(method: string, path: string, body: unknown, token: string | null, budget: CallBudget): Promise<HttpAnswer> {
    for (let tries = 1; ; tries += 1) {
      let answer: HttpAnswer | null = null;
      let lost: unknown = null;
      try {
        answer = await this.sendOnce(method, path, body, token, budget);
      } catch (error) {
        if (budget.signal.aborted) throw budget.signal.reason ?? new FiskalyApiError('timeout', `fiskaly ${method} ${path} did not answer in time`);
        lost = error;
      }
      const transient = answer === null || answer.status === 429 || answer.status >= 500;
      if (!transient) return answer!;
      const waitMs = answer?.status === 429 ? (answer.retryAfterMs ?? backoffDelayMs(tries, FIRST_BACKOFF_MS, MAX_BACKOFF_MS)) : backoffDelayMs(tries, FIRST_BACKOFF_MS, MAX_BACKOFF_MS);
      if (tries >= MAX_TRIES || Date.now() + waitMs >= budget.deadline) {
        if (answer) return answer;
        throw new FiskalyApiError('unreachable', this.withoutCredentials(`fiskaly ${method} ${path} cannot be reached: ${describe(lost)}`));
      }
      await sleep(waitMs, undefined, { signal: budget.signal }).catch(() => {
        throw budget.signal.reason ?? new FiskalyApiError('timeout', `fiskaly ${method} ${path} did not answer in time`);
      });
    }
  }

  private async sendOnce(method: string, path: string, body: unknown, token: string | null, budget: CallBudget): Promise<HttpAnswer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await request(`${this.connection.apiUrl}${path}`, {
      method: method as 'GET' | 'PUT' | 'POST',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: budget.signal,
    });
    return answerOf(response);
  }
}

/** When a token stops working: fiskaly gives the epoch second, or the seconds it lasts. */
function expiryOf(auth: AuthAnswer): number {
  if (typeof auth.access_token_expires_at === 'number') return auth.access_token_expires_at * 1000;
  if (typeof auth.access_token_expires_in === 'number') return Date.now() + auth.access_token_expires_in * 1000;
  // Neither given: use it until fiskaly answers 401, which renews it.
  return Number.POSITIVE_INFINITY;
}
