import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Merchant } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql.js';
import { MERCHANT_COLUMNS, merchantFromRow, type MerchantRow } from '../db/rows/merchantRows.js';
import { environmentOfService, hashApiKey, parseApiKey, type KeyEnvironment, type KeyKind } from '../lib/apiKeys.js';
import { DomainError, forbidden, invalidRequest, notFound, unauthorized } from '../domain/errors.js';
import { endpointOf, type PrefetchedRecord } from './idempotency.js';

/** Who is calling: resolved from the API key on every request, never cached, so revocation is immediate. */
export interface Principal {
  keyId: string;
  tenantId: string;
  kind: KeyKind;
  /** Uppercase alpha-3 country the key is scoped to; null for platform keys. */
  countryCode: string | null;
  organizationId: string | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'public' routes need no key (health, hosted receipts, signed downloads); /v1 routes default to 'api_key'. */
    auth?: 'api_key' | 'public';
    /** Style M merchant-scoped routes need X-Service-Merchant. */
    merchantScoped?: boolean;
  }
  interface FastifyRequest {
    principal: Principal;
    merchant: Merchant;
  }
}

const BEARER_PREFIX = 'Bearer ';

/** The API key an Authorization header presents. */
export interface Credential {
  keyHash: string;
  environment: KeyEnvironment;
}

/**
 * The key of exactly `Bearer <key>`, the key in a format of contract 5.2; null for
 * anything else. Nothing is trimmed: padding (spaces, tabs, U+00A0) makes a header
 * malformed, never another spelling of the same key.
 */
function credentialOf(header: string | undefined): Credential | null {
  if (!header?.startsWith(BEARER_PREFIX)) return null;
  const key = header.slice(BEARER_PREFIX.length);
  const parsed = parseApiKey(key);
  return parsed ? { keyHash: hashApiKey(key), environment: parsed.environment } : null;
}

interface KeyRow extends Partial<MerchantRow> {
  id: string;
  tenant_id: string;
  kind: string;
  country_code: string | null;
  organization_id: string | null;
  revoked_at: Date | null;
  i_request_hash: string | null;
  i_response_status: number | null;
  i_response_body: unknown;
  i_response_headers: Record<string, string> | null;
}

/**
 * The caller's key and, when the route is merchant-scoped, the merchant it
 * names, in one round trip: this runs before every /v1 request. A Style M
 * mutation also reads its Idempotency-Key's stored response here, which
 * saves the idempotency layer a second round trip (src/http/idempotency.ts).
 * The lateral lookup takes the key's tenant from the key row, so the probe is
 * always a lookup on the whole unique key: as a plain join condition (or a
 * lateral subquery the planner flattens into one; LIMIT keeps it apart), a
 * prepared plan chosen while the table was small scanned the index without its
 * leading column, or the whole table, on every request as the table grew.
 */
export const KEY_MERCHANT_AND_STORED_RESPONSE = `
  SELECT k.id, k.tenant_id, k.kind, k.country_code, k.organization_id, k.revoked_at, ${MERCHANT_COLUMNS},
         i.request_hash AS i_request_hash, i.response_status AS i_response_status,
         i.response_body AS i_response_body, i.response_headers AS i_response_headers
    FROM api_keys k
    LEFT JOIN merchants m ON m.id = $2
    LEFT JOIN LATERAL (
      SELECT * FROM idempotency_keys
       WHERE tenant_id = k.tenant_id AND merchant_scope = $2 AND endpoint = $3 AND key = $4 AND expires_at > now()
       LIMIT 1) i ON true
   WHERE k.key_hash = $1`;

/** What a Style M mutation's Idempotency-Key will be looked up under. */
export interface IdempotencyProbe {
  endpoint: string;
  key: string;
}

/**
 * Who is calling and, when `merchantId` is given, that merchant as stored
 * (null: none with that id) and, with a probe, the stored response of that key.
 */
export async function authenticate(
  sql: SqlClient,
  serviceEnv: 'sandbox' | 'production',
  credential: Credential,
  merchantId: string | null = null,
  probe: IdempotencyProbe | null = null,
): Promise<{ principal: Principal; merchant: Merchant | null; idempotencyPrefetch: PrefetchedRecord | undefined }> {
  if (credential.environment !== environmentOfService(serviceEnv)) {
    throw unauthorized(`This is a ${credential.environment === 'live' ? 'production' : 'sandbox'} key; this is the ${serviceEnv} environment`);
  }
  const usesProbe = Boolean(merchantId && probe);
  const [key] = await sql.query<KeyRow>(KEY_MERCHANT_AND_STORED_RESPONSE, [
    credential.keyHash,
    merchantId,
    usesProbe ? probe!.endpoint : null,
    usesProbe ? probe!.key : null,
  ]);
  if (!key || key.revoked_at) throw unauthorized();
  return {
    principal: {
      keyId: key.id,
      tenantId: key.tenant_id,
      kind: key.kind as KeyKind,
      countryCode: key.country_code,
      organizationId: key.organization_id,
    },
    merchant: merchantFromRow(key),
    idempotencyPrefetch: usesProbe
      ? {
          merchantScope: merchantId!,
          endpoint: probe!.endpoint,
          key: probe!.key,
          record:
            key.i_request_hash === null
              ? null
              : {
                  request_hash: key.i_request_hash,
                  response_status: key.i_response_status!,
                  response_body: key.i_response_body,
                  response_headers: key.i_response_headers,
                },
        }
      : undefined,
  };
}

/**
 * Whether the principal may act for this merchant (contract 5.6): another
 * tenant's merchant does not exist for it (404); the wrong country or
 * organization is 403.
 */
export function assertMerchantAccess(principal: Principal, merchant: Merchant | null, merchantId: string): Merchant {
  if (!merchant || merchant.tenantId !== principal.tenantId) throw notFound('merchant', merchantId);
  if (principal.countryCode && merchant.countryCode !== principal.countryCode) {
    throw forbidden(`This key is scoped to ${principal.countryCode}; the merchant is in ${merchant.countryCode}`, {
      key_country_code: principal.countryCode,
      merchant_country_code: merchant.countryCode,
    });
  }
  if (principal.organizationId && principal.organizationId !== merchant.id) {
    throw forbidden('This key is bound to another organization');
  }
  return merchant;
}

/** The merchant a Style M call names in X-Service-Merchant, or null without one. */
function headerMerchantId(request: FastifyRequest): string | null {
  const header = request.headers['x-service-merchant'];
  return (Array.isArray(header) ? header[0] : header)?.trim() || null;
}

export const authPlugin = fp(
  async (app: FastifyInstance, options: { sql: SqlClient; serviceEnv: 'sandbox' | 'production' }) => {
    app.decorateRequest('principal', null as unknown as Principal);
    app.decorateRequest('merchant', null as unknown as Merchant);
    app.decorateRequest('idempotencyPrefetch', undefined);
    // onRequest, so a caller without a valid key learns nothing about body validation.
    app.addHook('onRequest', async (request, reply) => {
      const config = request.routeOptions.config;
      const auth = config.auth ?? (request.routeOptions.url?.startsWith('/v1/') ? 'api_key' : 'public');
      if (auth !== 'api_key') {
        // Public links, the admin API and unknown paths: the client address's budget.
        if (config.rateLimit !== false) await app.rateLimits.admitWithoutKey(request.ip, reply);
        return;
      }
      const merchantId = config.merchantScoped ? headerMerchantId(request) : null;
      const idempotencyKey = request.headers['idempotency-key'];
      const probe = request.method !== 'GET' && typeof idempotencyKey === 'string' ? { endpoint: endpointOf(request), key: idempotencyKey } : null;
      const credential = credentialOf(request.headers.authorization);
      await app.rateLimits.admitKeyLookup(request.ip, credential?.keyHash ?? null);
      // The key is checked first: an unknown key is 401 whatever else is wrong.
      let authenticated: Awaited<ReturnType<typeof authenticate>>;
      try {
        if (!credential) throw unauthorized();
        authenticated = await authenticate(options.sql, options.serviceEnv, credential, merchantId, probe);
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'unauthorized') await app.rateLimits.keyRejected(request.ip, credential?.keyHash ?? null);
        throw error;
      }
      const { principal, merchant, idempotencyPrefetch } = authenticated;
      await app.rateLimits.keyAccepted(credential.keyHash, principal.keyId, reply);
      request.principal = principal;
      request.idempotencyPrefetch = idempotencyPrefetch;
      if (!config.merchantScoped) return;
      if (!merchantId) {
        throw invalidRequest('X-Service-Merchant header is required for merchant-scoped calls', { header: 'X-Service-Merchant' });
      }
      if (principal.kind === 'platform') {
        throw forbidden('Platform keys act on organizations (Service-Organization), not through X-Service-Merchant');
      }
      request.merchant = assertMerchantAccess(principal, merchant, merchantId);
    });
  },
  { name: 'auth', dependencies: ['rate-limit'] },
);
