import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Prisma } from '../db/database.js';
import type { Prisma as PrismaNs } from '../db/generated/client.js';
import { newId } from '../lib/ids.js';
import { ApiError, conflict, invalidRequest, isRetryableStatus } from './errors.js';

/** A response as the service sends it and as an idempotent replay returns it. */
export interface HttpResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Tx = PrismaNs.TransactionClient;

/**
 * Called by a service inside its final transaction, so the stored response
 * commits (or rolls back) together with the change it describes.
 */
export type PersistResponse = (tx: Tx, result: HttpResult) => Promise<void>;

export interface IdempotencySettings {
  retentionHours: number;
  /** How long a request may hold its key before another attempt may take over (crash recovery). */
  leaseMs: number;
  /** How long a concurrent duplicate waits for the first attempt to finish. */
  waitMs: number;
}

interface KeyScope {
  tenantId: string;
  merchantScope: string;
  endpoint: string;
  key: string;
  requestHash: string;
}

type Claim = { kind: 'owned'; id: string } | { kind: 'replay'; result: HttpResult };

const REPLAYED_HEADER = 'idempotent-replayed';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Canonical JSON (sorted keys), so the same payload hashes the same whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Stripe-style idempotency keys in Postgres: a key is claimed by inserting its
 * row; the response is stored in the same transaction as the change; a
 * concurrent duplicate waits and then replays; a retryable failure releases the
 * key so a retry executes; a crashed attempt's lease expires and a retry takes over.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Prisma,
    private readonly settings: IdempotencySettings,
  ) {}

  async claim(scope: KeyScope): Promise<Claim> {
    const deadline = Date.now() + this.settings.waitMs;
    for (;;) {
      const inserted = await this.db.$queryRaw<{ id: string }[]>`
        INSERT INTO idempotency_keys (id, tenant_id, merchant_scope, endpoint, key, request_hash, state, locked_until, expires_at)
        VALUES (${newId('idk')}, ${scope.tenantId}, ${scope.merchantScope}, ${scope.endpoint}, ${scope.key}, ${scope.requestHash},
                'in_progress', now() + make_interval(secs => ${this.settings.leaseMs / 1000}),
                now() + make_interval(hours => ${this.settings.retentionHours}))
        ON CONFLICT (tenant_id, merchant_scope, endpoint, key) DO NOTHING
        RETURNING id`;
      if (inserted.length) return { kind: 'owned', id: inserted[0].id };

      const existing = await this.db.idempotencyKey.findUnique({
        where: {
          tenantId_merchantScope_endpoint_key: {
            tenantId: scope.tenantId,
            merchantScope: scope.merchantScope,
            endpoint: scope.endpoint,
            key: scope.key,
          },
        },
      });
      if (!existing) continue; // released between our insert and read: try again
      if (existing.expiresAt.getTime() <= Date.now()) {
        await this.db.idempotencyKey.deleteMany({ where: { id: existing.id, expiresAt: { lte: new Date() } } });
        continue;
      }
      if (existing.requestHash !== scope.requestHash) {
        throw conflict('idempotency_key_conflict', 'This Idempotency-Key was already used with a different request payload', {
          idempotency_key: scope.key,
        });
      }
      if (existing.state === 'completed') {
        return {
          kind: 'replay',
          result: {
            status: existing.responseStatus!,
            body: existing.responseBody,
            headers: (existing.responseHeaders as Record<string, string> | null) ?? {},
          },
        };
      }
      const takenOver = await this.db.$queryRaw<{ id: string }[]>`
        UPDATE idempotency_keys
           SET locked_until = now() + make_interval(secs => ${this.settings.leaseMs / 1000})
         WHERE id = ${existing.id} AND state = 'in_progress' AND locked_until < now()
        RETURNING id`;
      if (takenOver.length) return { kind: 'owned', id: existing.id };
      if (Date.now() >= deadline) {
        throw conflict('conflict', 'A request with this Idempotency-Key is still in progress; retry shortly', {
          idempotency_key: scope.key,
          reason: 'request_in_progress',
        });
      }
      await sleep(25);
    }
  }

  /** Stores the final response; a retryable one is not stored, so the retry executes. */
  async complete(db: Prisma | Tx, id: string, result: HttpResult): Promise<void> {
    if (isRetryableStatus(result.status)) {
      await db.idempotencyKey.deleteMany({ where: { id } });
      return;
    }
    await db.idempotencyKey.update({
      where: { id },
      data: {
        state: 'completed',
        lockedUntil: null,
        responseStatus: result.status,
        responseBody: result.body as PrismaNs.InputJsonValue,
        responseHeaders: result.headers ?? {},
      },
    });
  }

  /** Stores a response outside the request's transaction (errors, or handlers that did not persist). */
  async record(id: string, result: HttpResult): Promise<void> {
    await this.complete(this.db, id, result);
  }

  async release(id: string): Promise<void> {
    await this.db.idempotencyKey.deleteMany({ where: { id } });
  }

  /** Deletes records past their retention. */
  async sweep(): Promise<number> {
    const { count } = await this.db.idempotencyKey.deleteMany({ where: { expiresAt: { lt: new Date() } } });
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

export function sendResult(reply: FastifyReply, result: HttpResult): void {
  if (result.headers) reply.headers(result.headers);
  reply.code(result.status).send(result.body);
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
    endpoint: `${request.method} ${request.url.split('?')[0]}`,
    key,
    requestHash: createHash('sha256')
      .update(canonicalJson({ body: request.body ?? null, if_match: ifMatch ?? null }))
      .digest('hex'),
  };
  const claim = await store.claim(scope);
  if (claim.kind === 'replay') {
    reply.header(REPLAYED_HEADER, 'true');
    return sendResult(reply, claim.result);
  }
  let persisted = false;
  try {
    const result = await execute(async (tx, response) => {
      await store.complete(tx, claim.id, response);
      persisted = true;
    });
    if (!persisted) await store.record(claim.id, result);
    return sendResult(reply, result);
  } catch (error) {
    if (error instanceof ApiError && !error.retryable) {
      await store.record(claim.id, { status: error.statusCode, body: error.toBody(), headers: error.headers });
    } else {
      await store.release(claim.id).catch(() => undefined);
    }
    throw error;
  }
}
