import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { assertWritten, isNothingWritten, type SqlClient, type SqlDatabase } from '../db/sql.js';
import { conflict, DomainError, invalidRequest } from '../domain/errors.js';
import { apiErrorOf } from './errorHandler.js';
import { ApiError, isRetryableStatus } from './errors.js';
import { jsonText } from './jsonText.js';

/** A response as the service sends it and as an idempotent replay returns it. */
export interface HttpResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * Called by a service inside its final transaction, so the stored response
 * commits (or rolls back) together with the change it describes.
 */
export type PersistResponse = (sql: SqlClient, result: HttpResult) => Promise<void>;

export interface IdempotencySettings {
  retentionHours: number;
}

export interface KeyScope {
  tenantId: string;
  merchantScope: string;
  endpoint: string;
  key: string;
  requestHash: string;
}

/** A stored response as the table holds it. */
export interface StoredRecord {
  request_hash: string;
  response_status: number;
  response_body: unknown;
  response_headers: Record<string, string> | null;
}

/** The record of one key, read ahead (by the auth query) for the tenant of the request's API key. */
export interface PrefetchedRecord {
  merchantScope: string;
  endpoint: string;
  key: string;
  record: StoredRecord | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyPrefetch?: PrefetchedRecord;
  }
}

const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * Canonical JSON (keys sorted by UTF-16 code units, undefined members dropped), so the same
 * payload hashes the same whatever the key order. Built in one string, without the arrays of
 * entries a functional version allocates: it runs on every request that carries a key.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  let text = '';
  if (Array.isArray(value)) {
    for (const item of value) text += (text === '' ? '' : ',') + canonicalJson(item);
    return `[${text}]`;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    text += (text === '' ? '' : ',') + JSON.stringify(key) + ':' + canonicalJson(record[key]);
  }
  return `{${text}}`;
}

const KEY_TAKEN = 'idempotency key taken by a concurrent request';

/** Another request with the same key committed first; this one's transaction must roll back. */
export class KeyTakenError extends Error {
  constructor() {
    super(KEY_TAKEN);
    this.name = 'KeyTakenError';
  }
}

/**
 * The response under its key. A concurrent request with the same key that committed
 * first leaves nothing to write (its record has not expired), and the statement fails,
 * with the transaction it is pipelined in (see SqlClient.write).
 */
const STORE_RESPONSE = `
  WITH written AS (
    INSERT INTO idempotency_keys (tenant_id, merchant_scope, endpoint, key, request_hash,
                                  response_status, response_body, response_headers, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7::json, $8::json, now() + make_interval(hours => $9::int))
    ON CONFLICT (tenant_id, merchant_scope, endpoint, key) DO UPDATE
      SET request_hash = EXCLUDED.request_hash, response_status = EXCLUDED.response_status,
          response_body = EXCLUDED.response_body, response_headers = EXCLUDED.response_headers,
          created_at = now(), expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= now()
    RETURNING 1)
  SELECT ${assertWritten(KEY_TAKEN)}`;

/** KeyTakenError for the database's refusal of STORE_RESPONSE (also when it surfaces at the commit), else `error`. */
const keyTakenOr = (error: unknown): unknown => (isNothingWritten(error, KEY_TAKEN) ? new KeyTakenError() : error);

/**
 * Stripe-style idempotency keys in Postgres, one commit per request: the
 * stored response is inserted in the same transaction as the change it
 * describes, so both commit or neither does (a crash leaves no half state and
 * no stale lock). A concurrent duplicate's insert waits on the first one's
 * unique-index entry; when that commits, the duplicate rolls back its own work
 * and replays the winner. Retryable failures are never stored, so a retry
 * executes.
 */
export class IdempotencyStore {
  constructor(
    readonly sql: SqlDatabase,
    private readonly settings: IdempotencySettings,
  ) {}

  /**
   * The stored response for this key, or null; 409 when the key was used with
   * another payload. A record the auth query already read for exactly this
   * scope (`prefetched`) saves the round trip.
   */
  async lookup(scope: KeyScope, prefetched?: PrefetchedRecord): Promise<HttpResult | null> {
    const existing =
      prefetched && prefetched.merchantScope === scope.merchantScope && prefetched.endpoint === scope.endpoint && prefetched.key === scope.key
        ? prefetched.record
        : ((
            await this.sql.query<StoredRecord>(
              `SELECT request_hash, response_status, response_body, response_headers FROM idempotency_keys
                WHERE tenant_id = $1 AND merchant_scope = $2 AND endpoint = $3 AND key = $4 AND expires_at > now()`,
              [scope.tenantId, scope.merchantScope, scope.endpoint, scope.key],
            )
          )[0] ?? null);
    if (!existing) return null;
    if (existing.request_hash !== scope.requestHash) {
      throw conflict('idempotency_key_conflict', 'This Idempotency-Key was already used with a different request payload', {
        idempotency_key: scope.key,
      });
    }
    return { status: existing.response_status, body: existing.response_body, headers: existing.response_headers ?? {} };
  }

  /**
   * Stores a final response (inside the request's transaction when `sql` is
   * one). Retryable responses are not stored. Throws KeyTakenError when a
   * concurrent request with the same key committed first.
   */
  async store(sql: SqlClient, scope: KeyScope, result: HttpResult): Promise<void> {
    if (isRetryableStatus(result.status)) return;
    try {
      await sql.write(STORE_RESPONSE, [
        scope.tenantId,
        scope.merchantScope,
        scope.endpoint,
        scope.key,
        scope.requestHash,
        result.status,
        jsonText(result.body),
        JSON.stringify(result.headers ?? {}),
        this.settings.retentionHours,
      ]);
    } catch (error) {
      throw keyTakenOr(error);
    }
  }

  /** Deletes records past their retention. */
  async sweep(): Promise<number> {
    const [{ count }] = await this.sql.query<{ count: number }>(
      `WITH swept AS (DELETE FROM idempotency_keys WHERE expires_at < now() RETURNING 1) SELECT count(*)::int AS count FROM swept`,
    );
    return count;
  }
}

export interface IdempotencyOptions {
  required: boolean;
  /** Style O requires keys to be UUIDs. */
  format?: 'any' | 'uuid';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

function readKey(request: FastifyRequest, options: IdempotencyOptions): string | undefined {
  const raw = request.headers['idempotency-key'];
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || key === '') {
    if (options.required) throw invalidRequest('Idempotency-Key header is required', { header: 'Idempotency-Key' });
    return undefined;
  }
  if (options.format === 'uuid' ? !UUID.test(key) : !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw invalidRequest(
      options.format === 'uuid' ? 'Idempotency-Key must be a UUID' : 'Idempotency-Key must be 1-255 visible ASCII characters',
      { header: 'Idempotency-Key' },
    );
  }
  return key;
}

/**
 * The route pattern with its parameters filled in, so `/v1/x` and `/v1/x/` (or two
 * encodings of one id) are one endpoint.
 */
export function endpointOf(request: FastifyRequest): string {
  const params = (request.params ?? {}) as Record<string, string>;
  const pattern = request.routeOptions.url ?? request.url.split('?')[0];
  return `${request.method} ${pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))}`;
}

export function sendResult(reply: FastifyReply, result: HttpResult): void {
  if (result.headers) reply.headers(result.headers);
  reply.code(result.status).send(result.body);
}

function replay(reply: FastifyReply, result: HttpResult): void {
  reply.header(REPLAYED_HEADER, 'true');
  sendResult(reply, result);
}

/**
 * Runs a mutation under the request's Idempotency-Key. `execute` receives a
 * PersistResponse to call inside its final transaction; if it never calls it,
 * the response is stored right after.
 */
export async function runIdempotent(
  store: IdempotencyStore,
  request: FastifyRequest,
  reply: FastifyReply,
  options: IdempotencyOptions,
  execute: (persist: PersistResponse) => Promise<HttpResult>,
): Promise<void> {
  const key = readKey(request, options);
  if (key === undefined) return sendResult(reply, await execute(async () => undefined));

  const ifMatch = request.headers['if-match'];
  const scope: KeyScope = {
    tenantId: request.principal.tenantId,
    merchantScope: request.merchant?.id ?? request.headers['service-organization']?.toString() ?? '',
    endpoint: endpointOf(request),
    key,
    requestHash: createHash('sha256')
      .update(canonicalJson({ body: request.body ?? null, if_match: ifMatch ?? null }))
      .digest('hex'),
  };
  const stored = await store.lookup(scope, request.idempotencyPrefetch);
  if (stored) return replay(reply, stored);
  let persisted = false;
  try {
    const result = await execute(async (sql, response) => {
      await store.store(sql, scope, response);
      persisted = true;
    });
    if (!persisted) await store.store(store.sql, scope, result);
    return sendResult(reply, result);
  } catch (thrown) {
    const error = keyTakenOr(thrown);
    const answer = error instanceof DomainError ? apiErrorOf(error) : error instanceof ApiError ? error : undefined;
    // A duplicate that ran concurrently may have failed only because the first
    // one committed (its key, or its effect: "already completed"): answer as the first did.
    if (error instanceof KeyTakenError || answer) {
      const winner = await store.lookup(scope);
      if (winner) return replay(reply, winner);
    }
    if (answer?.replayable) {
      try {
        await store.store(store.sql, scope, { status: answer.statusCode, body: answer.toBody(), headers: answer.headers });
      } catch (storeError) {
        if (!(storeError instanceof KeyTakenError)) throw storeError;
        const winner = await store.lookup(scope);
        if (winner) return replay(reply, winner);
      }
    }
    throw error;
  }
}

/**
 * runIdempotent for a service that takes a finalize callback (the usual
 * shape): the value the service finalizes is presented once, stored inside its
 * transaction, and sent.
 */
export function runIdempotentService<T>(
  store: IdempotencyStore,
  request: FastifyRequest,
  reply: FastifyReply,
  options: IdempotencyOptions,
  present: (value: T) => HttpResult,
  run: (finalize: (sql: SqlClient, value: T) => Promise<void>) => Promise<T>,
): Promise<void> {
  return runIdempotent(store, request, reply, options, async (persist) => {
    let result: HttpResult | undefined;
    const value = await run(async (sql, finalized) => {
      result = present(finalized);
      await persist(sql, result);
    });
    return result ?? present(value);
  });
}
