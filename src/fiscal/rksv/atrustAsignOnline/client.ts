import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { backoffDelayMs } from '../../../domain/backoff.js';
import type { AtrustConnection } from './connection.js';
import type { CallBudget } from '../../callBudget.js';
import { parsedJson } from '../../../lib/httpAnswer.js';

/**
 * How a call to a.sign RK online failed, after the client's own retries:
 * - `unauthorized`: A-Trust refused the account or its password (401, 403);
 * - `unavailable`: A-Trust answered 5xx on every try;
 * - `unreachable`: no answer came (connection refused, reset, DNS);
 * - `timeout`: the budget ran out while waiting;
 * - `rejected`: A-Trust refused the request otherwise (any other 4xx);
 * - `malformed`: A-Trust answered 2xx with a body the driver cannot use.
 */
export type AtrustFailureKind = 'unauthorized' | 'unavailable' | 'unreachable' | 'timeout' | 'rejected' | 'malformed';

/** A failed call. Its message names the method, the endpoint and A-Trust's answer, never the username or password. */
export class AtrustApiError extends Error {
  constructor(
    readonly kind: AtrustFailureKind,
    message: string,
    /** The HTTP status A-Trust answered, when it answered. */
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'AtrustApiError';
  }
}

/** What `GET /{username}/Certificate` answers (field names as A-Trust writes them). */
export interface AtrustCertificateAnswer {
  /** Standard base64 of the DER signing certificate. */
  Signaturzertifikat?: unknown;
  /** Standard base64 DER certificates of the issuing CAs. */
  Zertifizierungsstellen?: unknown;
  /** The certificate serial, decimal. */
  Zertifikatsseriennummer?: unknown;
  /** The certificate serial, hexadecimal: what field 11 of every receipt carries. */
  ZertifikatsseriennummerHex?: unknown;
  /** The signature algorithm; A-Trust renamed `algo` to `alg`, older accounts may still answer the former. */
  alg?: unknown;
  algo?: unknown;
}

/** Tries per request for 5xx and lost connections, all within the budget. */
const MAX_TRIES = 4;
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1000;
/** A-Trust's firewall turns away requests that name no client (their WAF answers 403). */
const USER_AGENT = 'fiscalization-service (RKSV a.sign RK online driver)';

interface Answer {
  status: number;
  body: unknown;
}

/** A-Trust's error text, as far as its body has one (JSON with a message, or plain text). */
function vendorMessage(body: unknown): string | null {
  if (typeof body === 'string') {
    const plain = body.trim();
    return plain && !plain.startsWith('<') ? plain.slice(0, 200) : null;
  }
  if (typeof body === 'object' && body !== null) {
    for (const key of ['message', 'Message', 'error', 'ErrorMessage', 'errortext']) {
      const value = (body as Record<string, unknown>)[key];
      if (typeof value === 'string' && value) return value.slice(0, 200);
    }
  }
  return null;
}

/** An undici error as a log can show it: its code and message (they name host and port, never the path or a body). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/**
 * a.sign RK online over HTTP. The account is the path's first segment and the
 * password travels in the body of each signing request; the certificate and
 * the ZDA id are public. 5xx answers and lost connections are retried with
 * backoff while the budget lasts: every request is a read or a signature over
 * input the caller fixed, so repeating one whose answer was lost is harmless.
 */
export class AtrustClient {
  constructor(private readonly connection: AtrustConnection) {}

  /** The signing certificate, its CA chain and serial. */
  certificate(budget: CallBudget): Promise<AtrustCertificateAnswer> {
    return this.call<AtrustCertificateAnswer>('GET', 'Certificate', undefined, budget);
  }

  /** The trust service provider's id for the suite (`AT1` for A-Trust). */
  async zdaId(budget: CallBudget): Promise<string> {
    const answer = await this.call<{ zdaid?: unknown }>('GET', 'ZDA', undefined, budget);
    if (typeof answer?.zdaid !== 'string' || !answer.zdaid) throw new AtrustApiError('malformed', 'A-Trust GET ZDA answered without a zdaid');
    return answer.zdaid;
  }

  /**
   * The compact JWS A-Trust makes of a receipt payload: it adds the one header
   * suite R1 allows and signs `header.payload` with ES256 (`Sign/JWS`).
   */
  async signJws(payload: string, budget: CallBudget): Promise<string> {
    const answer = await this.call<{ result?: unknown }>('POST', 'Sign/JWS', { password: this.connection.password, jws_payload: payload }, budget);
    if (typeof answer?.result !== 'string' || !answer.result) throw new AtrustApiError('malformed', 'A-Trust POST Sign/JWS answered without a result');
    return answer.result;
  }

  /** A JSON request to `/{username}/{endpoint}`; its 2xx answer's body. */
  private async call<T>(method: 'GET' | 'POST', endpoint: string, body: unknown, budget: CallBudget): Promise<T> {
    const said = `A-Trust ${method} ${endpoint}`;
    const answer = await this.send(method, endpoint, body, budget, said);
    if (answer.status >= 200 && answer.status < 300) {
      if (answer.body === null) throw new AtrustApiError('malformed', `${said} answered ${answer.status} without a JSON body`, answer.status);
      return answer.body as T;
    }
    const kind: AtrustFailureKind =
      answer.status === 401 || answer.status === 403 ? 'unauthorized' : answer.status >= 500 ? 'unavailable' : 'rejected';
    const message = vendorMessage(answer.body);
    throw new AtrustApiError(kind, this.withoutCredentials(`${said} answered ${answer.status}${message ? `: ${message}` : ''}`), answer.status);
  }

  /** What A-Trust or the network said, as errors and logs may carry it: should it echo the account or password, that is cut out. */
  private withoutCredentials(text: string): string {
    return [this.connection.password, this.connection.username].reduce((said, secret) => (secret ? said.split(secret).join('[redacted]') : said), text);
  }

  /** One request, repeated on 5xx and lost connections while tries and budget last; any other answer is returned. */
  private async send(method: string, endpoint: string, body: unknown, budget: CallBudget, said: string): Promise<Answer> {
    const timedOut = () => new AtrustApiError('timeout', `${said} did not answer in time`);
    for (let tries = 1; ; tries += 1) {
      const remaining = budget.deadline - Date.now();
      if (remaining <= 0 || budget.signal.aborted) throw timedOut();
      const signal = AbortSignal.any([budget.signal, AbortSignal.timeout(remaining)]);
      let answer: Answer | null = null;
      let lost: unknown = null;
      try {
        answer = await this.sendOnce(method, endpoint, body, signal);
      } catch (error) {
        if (signal.aborted) throw timedOut();
        lost = error;
      }
      if (answer !== null && answer.status < 500) return answer;
      const waitMs = backoffDelayMs(tries, FIRST_BACKOFF_MS, MAX_BACKOFF_MS);
      if (tries >= MAX_TRIES || Date.now() + waitMs >= budget.deadline) {
        if (answer) return answer;
        throw new AtrustApiError('unreachable', this.withoutCredentials(`${said} cannot be reached: ${describe(lost)}`));
      }
      await sleep(waitMs, undefined, { signal: budget.signal }).catch(() => {
        throw timedOut();
      });
    }
  }

  private async sendOnce(method: string, endpoint: string, body: unknown, signal: AbortSignal): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await request(`${this.connection.apiUrl}/${encodeURIComponent(this.connection.username)}/${endpoint}`, {
      method: method as 'GET' | 'POST',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    const text = await response.body.text();
    const parsed = parsedJson(text);
    return { status: response.statusCode, body: parsed ?? (response.statusCode >= 300 ? text : null) };
  }
}
