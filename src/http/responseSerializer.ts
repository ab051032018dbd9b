import { isDeepStrictEqual } from 'node:util';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { ResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { jsonText } from './jsonText.js';

type ResponseSchema = z.ZodType | { properties: z.ZodType };

/** A value as its JSON text means it: undefined members dropped, dates as their strings. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

/**
 * How responses become JSON. Presenters build each response typed against its schema;
 * `checked` (the test suite's apps) also encodes it with the zod schema and fails it
 * (500, logged as a response that does not match its schema) unless the presenter's
 * object already is that output: nothing stripped, converted or missing. The server
 * runs unchecked and writes the presenter's object as it is, without a second pass
 * over every response, and reuses the text its idempotency record was stored with.
 */
export function responseSerializer(checked: boolean): FastifySerializerCompiler<ResponseSchema> {
  if (!checked) return () => jsonText;
  return ({ schema, method, url }) => {
    const zodSchema = schema instanceof z.ZodType ? schema : schema.properties;
    return (data) => {
      const encoded = z.safeEncode(zodSchema, data);
      if (encoded.error) throw new ResponseSerializationError(method, url, { cause: encoded.error });
      const text = JSON.stringify(encoded.data);
      if (!isDeepStrictEqual(JSON.parse(text), asJson(data))) {
        const difference = new z.ZodError([{ code: 'custom', path: [], message: "the presenter's object is not exactly its schema's output", input: data }]);
        throw new ResponseSerializationError(method, url, { cause: difference });
      }
      return text;
    };
  };
}
