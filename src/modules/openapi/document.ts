import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../../config.js';
import { REQUIRED_BY_HANDLER } from '../common/responses.js';

// The OpenAPI document (contract 9.3) as @fastify/swagger builds it from the routes' zod schemas:
// its frame (info, servers, security, tags), one route's part, and the finished whole.

type RouteDocument = Parameters<typeof jsonSchemaTransform>[0];
type DocumentObject = Parameters<typeof jsonSchemaTransformObject>[0];
type JsonObject = Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';

const INFO = {
  title: 'Fiscalization Service',
  version: '1.1.0',
  description:
    'Server-to-server fiscalization API. Style M (merchant-scoped: X-Service-Merchant, decimal strings, status, resource_version) and Style O (organization-scoped: integer minor units, state, object).',
};

const TAGS = [
  { name: 'Merchants', description: "Style M: the merchants of the key's tenant, in the key's country." },
  { name: 'Locations', description: 'Where registers stand. Style M per merchant; Style O per organization (the same records).' },
  { name: 'Registers', description: 'Style M: point-of-sale terminals, their fiscalization and fiscal device.' },
  { name: 'Operations', description: 'Sales, returns, exchanges and register-session events (Style M), and the calls both styles share.' },
  { name: 'Refunds', description: 'Style O: refunds of completed sales, completed (signed) or cancelled.' },
  { name: 'Receipts', description: "Receipts of completed operations, and the customer's links (no API key)." },
  { name: 'Exports', description: 'Style M: asynchronous DSFinV-K exports and their signed downloads.' },
  {
    name: 'Events',
    description: 'Both styles: what changed (fiscal states, exports, daily closures, signature devices), written in the transaction of the change.',
  },
  { name: 'Webhooks', description: 'Both styles: endpoints that receive the events, signed (Service-Signature), with their delivery log.' },
  { name: 'Health', description: 'Liveness and readiness, without an API key.' },
  {
    name: 'Admin',
    description:
      'The operator console: tenants and their API keys. Served only where the deployment sets ADMIN_TOKEN (elsewhere every call is 404 not_found), with that token as the bearer credential.',
  },
];

const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http' as const,
    scheme: 'bearer',
    description: 'An API key: svc_{test|live}_{country}_{random}, or svc_platform_{test|live}_{random}',
  },
  adminToken: { type: 'http' as const, scheme: 'bearer', description: 'The ADMIN_TOKEN setting of the deployment' },
};

/** The @fastify/swagger options: the document's frame and the transforms below. */
export function openApiOptions(config: Config): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: INFO,
      servers: [
        { url: config.productionBaseUrl, description: 'Production: live keys (svc_live_...)' },
        { url: config.sandboxBaseUrl, description: 'Sandbox: test keys (svc_test_...)' },
      ],
      tags: TAGS,
      components: { securitySchemes: SECURITY_SCHEMES },
      security: [{ bearerAuth: [] }],
    },
    // Paths are the service's own; a server URL with a path is a base in front of them.
    stripBasePath: false,
    transform: describeRoute,
    transformObject: describeDocument,
  };
}

/** One route's part: its zod schemas as JSON Schema, the headers its handler requires marked required. */
export function describeRoute(route: RouteDocument): ReturnType<typeof jsonSchemaTransform> {
  const described = jsonSchemaTransform(route);
  const headers = described.schema.headers as JsonObject | undefined;
  if (!headers) return described;
  return { ...described, schema: { ...described.schema, headers: withHandlerRequiredHeaders(headers) } };
}

function withHandlerRequiredHeaders(headers: JsonObject): JsonObject {
  const required = [...((headers.required as string[] | undefined) ?? [])];
  const properties = Object.fromEntries(
    Object.entries((headers.properties ?? {}) as Record<string, JsonObject>).map(([name, { [REQUIRED_BY_HANDLER]: byHandler, ...schema }]) => {
      if (byHandler === true) required.push(name);
      return [name, schema];
    }),
  );
  return { ...headers, properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * The whole document: the named schemas zod registered, less those no operation uses, and each
 * discriminator mapping its values to the named variants (a client picks the variant by value).
 */
export function describeDocument(document: DocumentObject): ReturnType<typeof jsonSchemaTransformObject> {
  const described = jsonSchemaTransformObject(document) as JsonObject & { components?: JsonObject & { schemas?: Record<string, JsonObject> } };
  const schemas = described.components?.schemas ?? {};
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF)) {
        const name = value.slice(SCHEMA_REF.length);
        if (!used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      } else {
        visit(value);
      }
    }
  };
  visit({ ...described, components: { ...described.components, schemas: {} } });
  const usedSchemas = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  const whole = { ...described, components: { ...described.components, schemas: usedSchemas } };
  return withDiscriminatorMappings(whole, usedSchemas) as ReturnType<typeof jsonSchemaTransformObject>;
}

/** A copy of `node` where every discriminator over named variants maps each variant's value to it. */
function withDiscriminatorMappings(node: unknown, schemas: Record<string, JsonObject>): unknown {
  if (Array.isArray(node)) return node.map((child) => withDiscriminatorMappings(child, schemas));
  if (!node || typeof node !== 'object') return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, child]) => [key, withDiscriminatorMappings(child, schemas)]));
  const discriminator = copy.discriminator as { propertyName?: string; mapping?: unknown } | undefined;
  const variants = copy.oneOf as JsonObject[] | undefined;
  if (!discriminator?.propertyName || discriminator.mapping || !Array.isArray(variants)) return copy;
  const mapping: Record<string, string> = {};
  for (const variant of variants) {
    const ref = variant.$ref;
    if (typeof ref !== 'string' || !ref.startsWith(SCHEMA_REF)) return copy;
    const value = constantOf(schemas[ref.slice(SCHEMA_REF.length)], discriminator.propertyName);
    if (value === undefined) return copy;
    mapping[value] = ref;
  }
  return { ...copy, discriminator: { ...discriminator, mapping } };
}

/** The one value a variant's discriminating property takes (const, or an enum of one). */
function constantOf(schema: JsonObject | undefined, property: string): string | undefined {
  const tag = (schema?.properties as Record<string, JsonObject> | undefined)?.[property];
  if (typeof tag?.const === 'string') return tag.const;
  if (Array.isArray(tag?.enum) && tag.enum.length === 1 && typeof tag.enum[0] === 'string') return tag.enum[0];
  return undefined;
}
