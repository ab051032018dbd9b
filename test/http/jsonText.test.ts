import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText } from '../../src/http/jsonText.js';

describe('jsonText', () => {
  it('is JSON.stringify of the value, with null for undefined as a stored body has it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonText(value)).toBe(JSON.stringify(value));
      }),
    );
    expect(jsonText(undefined)).toBe('null');
    expect(jsonText({ at: new Date(0), left: undefined })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it('serializes a body object once: the second call returns the text of the first', () => {
    const body = { id: 'op_1', total_amount: '11.90' };
    const first = jsonText(body);
    body.total_amount = '0.00';
    expect(jsonText(body)).toBe(first);
    expect(jsonText({ ...body })).toBe('{"id":"op_1","total_amount":"0.00"}');
  });
});
