import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Prisma } from '../db/database.js';
import type { Merchant } from '../db/generated/client.js';
import { environmentOfService, hashApiKey, parseApiKey, type KeyKind } from '../lib/apiKeys.js';
import { forbidden, invalidRequest, notFound, unauthorized } from './errors.js';

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

const BEARER = /^Bearer ([^\s]+)$/;

export async function authenticate(db: Prisma, serviceEnv: 'sandbox' | 'production', header: string | undefined): Promise<Principal> {
  const match = header ? BEARER.exec(header.trim()) : null;
  if (!match) throw unauthorized();
  const parsed = parseApiKey(match[1]);
  if (!parsed) throw unauthorized();
  if (parsed.environment !== environmentOfService(serviceEnv)) {
    throw unauthorized(`This is a ${parsed.environment === 'live' ? 'production' : 'sandbox'} key; this is the ${serviceEnv} environment`);
  }
  const key = await db.apiKey.findUnique({ where: { keyHash: hashApiKey(match[1]) } });
  if (!key || key.revokedAt) throw unauthorized();
  return {
    keyId: key.id,
    tenantId: key.tenantId,
    kind: key.kind as KeyKind,
    countryCode: key.countryCode,
    organizationId: key.organizationId,
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

export async function resolveMerchantFromHeader(db: Prisma, request: FastifyRequest): Promise<Merchant> {
  const header = request.headers['x-service-merchant'];
  const merchantId = Array.isArray(header) ? header[0] : header;
  if (!merchantId || !merchantId.trim()) {
    throw invalidRequest('X-Service-Merchant header is required for merchant-scoped calls', { header: 'X-Service-Merchant' });
  }
  if (request.principal.kind === 'platform') {
    throw forbidden('Platform keys act on organizations (Service-Organization), not through X-Service-Merchant');
  }
  const merchant = await db.merchant.findUnique({ where: { id: merchantId.trim() } });
  return assertMerchantAccess(request.principal, merchant, merchantId.trim());
}

export const authPlugin = fp(
  async (app: FastifyInstance, options: { db: Prisma; serviceEnv: 'sandbox' | 'production' }) => {
    app.decorateRequest('principal', null as unknown as Principal);
    app.decorateRequest('merchant', null as unknown as Merchant);
    // onRequest, so a caller without a valid key learns nothing about body validation.
    app.addHook('onRequest', async (request) => {
      const config = request.routeOptions.config;
      const auth = config.auth ?? (request.routeOptions.url?.startsWith('/v1/') ? 'api_key' : 'public');
      if (auth !== 'api_key') return;
      request.principal = await authenticate(options.db, options.serviceEnv, request.headers.authorization);
      if (config.merchantScoped) request.merchant = await resolveMerchantFromHeader(options.db, request);
    });
  },
  { name: 'auth' },
);
