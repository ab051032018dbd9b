import { request } from 'undici';
import { AcubeApiError, type AcubeFailureKind, type AcubeViolation } from './acubeApiError.js';
import type { AcubeConnection } from './acubeConnection.js';
import { answerOf, type HttpAnswer } from '../../../lib/httpAnswer.js';

/** A token this close to its expiry (the JWT's `exp`) is renewed before use rather than sent. */
const TOKEN_EXPIRY_MARGIN_MS = 60_000;

interface Token {
  value: string;
  expiresAt: number;
}

export interface AcubeRequest {
  method: 'GET' | 'POST';
  path: string;
  /** The raw body and its media type (an invoice file), or none. */
  body?: { content: Uint8Array; contentType: string };
}

/**
 * A-Cube's error body: `{code, message}` from its login, `{detail}` or `{title}` from the API
 * (RFC 7807), `{"hydra:description"}` from its API Platform's JSON-LD errors.
 */
function reasonOf(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const { message, detail, 'hydra:description': description, title } = body as Record<string, unknown>;
  const reason = [message, detail, description, title].find((value) => typeof value === 'string' && value !== '');
  return (reason as string | undefined) ?? null;
}

/** The `violations` API Platform lists when it refuses a request body (400, 422): `[{propertyPath, message, code}]`. */
function violationsOf(body: unknown): AcubeViolation[] {
  const listed = (body as { violations?: unknown } | null)?.violations;
  if (!Array.isArray(listed)) return [];
  return listed.flatMap((entry) => {
    const { propertyPath, message } = (entry ?? {}) as Record<string, unknown>;
    return typeof message === 'string' ? [{ propertyPath: typeof propertyPath === 'string' ? propertyPath : '', message }] : [];
  });
}

/** When a JWT stops working: its `exp` claim; without one, it is used until A-Cube answers 401. */
function expiryOf(token: string): number {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp * 1000 : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * A-Cube over HTTP: a JWT from POST {loginUrl}/login, kept in memory until shortly before its
 * `exp` and renewed once, transparently, when A-Cube answers 401 anyway. Every call is bounded
 * by `timeoutMs`; faults are thrown as AcubeApiError and not retried here: the transmission
 * worker retries with its backoff, after looking up whether a lost send arrived.
 */
export class AcubeClient {
  private token: Token | null = null;

  constructor(
    private readonly connection: AcubeConnection,
    private readonly timeoutMs: number,
  ) {}

  /** Logs in with the account's credentials; its token, which also serves the calls that follow. */
  async login(): Promise<string> {
    const answer = await this.exchange('POST', `${this.connection.loginUrl}/login`, '/login', {
      content: Buffer.from(JSON.stringify({ email: this.connection.email, password: this.connection.password })),
      contentType: 'application/json',
    }, null);
    const body = this.accepted<{ token?: unknown }>('POST', '/login', answer);
    if (typeof body?.token !== 'string' || body.token === '') throw new AcubeApiError('unauthorized', 'A-Cube POST /login answered without a token', answer.status);
    this.token = { value: body.token, expiresAt: expiryOf(body.token) };
    return body.token;
  }

  /** A call under the API's URL with the bearer token; its 2xx answer's JSON body. */
  async call<T>(call: AcubeRequest): Promise<T> {
    let renewed = false;
    for (;;) {
      const token = this.token && this.token.expiresAt - TOKEN_EXPIRY_MARGIN_MS > Date.now() ? this.token.value : await this.login();
      const answer = await this.exchange(call.method, `${this.connection.apiUrl}${call.path}`, call.path, call.body, token);
      if (answer.status === 401 && !renewed) {
        // Expired or revoked before its `exp`: one fresh token, then the answer stands.
        if (this.token?.value === token) this.token = null;
        renewed = true;
        continue;
      }
      return this.accepted<T>(call.method, call.path, answer);
    }
  }

  private accepted<T>(method: string, path: string, answer: HttpAnswer): T {
    if (answer.status >= 200 && answer.status < 300) return answer.body as T;
    const reason = reasonOf(answer.body);
    const kind: AcubeFailureKind =
      answer.status === 401 ? 'unauthorized'
        : answer.status === 403 ? 'forbidden'
          : answer.status === 429 ? 'rate_limited'
            : answer.status >= 500 ? 'unavailable'
              : 'rejected';
    const said = `A-Cube ${method} ${path} answered ${answer.status}${reason ? `: ${reason}` : ''}`;
    const violations = violationsOf(answer.body).map(({ propertyPath, message }) => ({ propertyPath, message: this.withoutCredentials(message) }));
    throw new AcubeApiError(kind, this.withoutCredentials(said), answer.status, answer.retryAfterMs, violations);
  }

  /** What A-Cube or the network said, as errors and logs may carry it: should it echo the password or the token, that is cut out. */
  private withoutCredentials(text: string): string {
    const secrets = [this.connection.password, this.token?.value].filter((secret): secret is string => Boolean(secret));
    return secrets.reduce((said, secret) => said.split(secret).join('[redacted]'), text);
  }

  private async exchange(method: string, url: string, path: string, body: AcubeRequest['body'], token: string | null): Promise<HttpAnswer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body) headers['content-type'] = body.contentType;
    if (token) headers.authorization = `Bearer ${token}`;
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await request(url, { method: method as 'GET' | 'POST', headers, body: body ? Buffer.from(body.content) : undefined, signal });
      return await answerOf(response);
    } catch (error) {
      if (signal.aborted) throw new AcubeApiError('timeout', `A-Cube ${method} ${path} did not answer within ${this.timeoutMs} ms`);
      const code = (error as { code?: unknown }).code;
      const message = error instanceof Error ? error.message : String(error);
      throw new AcubeApiError('unreachable', this.withoutCredentials(`A-Cube ${method} ${path} cannot be reached: ${typeof code === 'string' ? `${code}: ` : ''}${message}`));
    }
  }
}
