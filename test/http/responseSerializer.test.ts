// Responses: the test suite's apps check that each presenter's object is exactly its schema's
// output; the server writes it as it is.
import { describe, expect, it } from 'vitest';
import { isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { responseSerializer } from '../../src/http/responseSerializer.js';

const Schema = z.object({ id: z.string(), note: z.string().nullable(), amount: z.number() });
const compile = (checked: boolean) => responseSerializer(checked)({ schema: Schema, method: 'GET', url: '/v1/things/:id', httpStatus: '200' });

describe('responseSerializer', () => {
  it('checked: writes an object that is exactly its schema output', () => {
    expect(compile(true)({ id: 'a', note: null, amount: 1.5 })).toBe('{"id":"a","note":null,"amount":1.5}');
  });

  it.each([
    ['a member the schema does not have (zod would strip it)', { id: 'a', note: null, amount: 1, extra: true }],
    ['a member the schema requires, missing', { id: 'a', amount: 1 }],
    ['a member of the wrong type', { id: 'a', note: null, amount: '1' }],
  ])('checked: fails on %s', (_, data) => {
    let thrown: unknown;
    try {
      compile(true)(data);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(isResponseSerializationError(thrown as Error)).toBe(true);
  });

  it('unchecked (the server): writes the presenter object as JSON, without a second pass', () => {
    expect(compile(false)({ id: 'a', note: null, amount: 1, extra: true })).toBe('{"id":"a","note":null,"amount":1,"extra":true}');
  });
});
