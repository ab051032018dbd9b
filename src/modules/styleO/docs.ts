import type { FastifySchema } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

type SwaggerTransform = Parameters<typeof jsonSchemaTransform>[0];

/**
 * Where both styles share a method and path (the style constraint picks the
 * route), OpenAPI has room for one operation. The Style O route is registered
 * after the Style M one, so its description wins: this gives it a schema that
 * describes both styles (headers of both, each request body, each response),
 * while the route itself validates with its Style O schema.
 */
export function describeBothStyles(schema: FastifySchema) {
  return {
    swaggerTransform: (args: SwaggerTransform) => jsonSchemaTransform({ ...args, schema }),
  } as Record<string, unknown>;
}
