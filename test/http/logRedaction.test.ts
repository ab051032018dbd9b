// What the log may show of a request: hosted-receipt tokens, export download
// signatures and API keys are redacted from URLs, messages and errors.
import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { logSerializers, redactLogArguments, redactText, redactUrl, redactUrlByParts } from '../../src/http/logRedaction.js';

const TOKEN = '9nTWFyn8rc8II8ELsUvgRsyHPVDPxNxB';
const KEY = 'svc_test_deu_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const SIGNATURE = 'q0Cw5lH1k7u8FpQ2mB1Xr9aZk3L5nT7vW0yJ4sD6eGc';

describe('redactUrl', () => {
  it.each([
    [`/receipts/${TOKEN}`, '/receipts/[redacted]'],
    [`/receipts/${TOKEN}/pdf`, '/receipts/[redacted]/pdf'],
    [`/receipts/${TOKEN}?utm_source=mail`, '/receipts/[redacted]?utm_source=mail'],
    [`/receipts/${TOKEN}/nope`, '/receipts/[redacted]/nope'],
    [`//receipts/${TOKEN}`, '//receipts/[redacted]'],
    [`/RECEIPTS/${TOKEN}`, '/RECEIPTS/[redacted]'],
    [`/%72eceipts/${TOKEN}`, '/%72eceipts/[redacted]'],
    [`/receipts%2F${TOKEN}`, '/[redacted]'],
    [`/receipts/${TOKEN.slice(0, 16)}%2F${TOKEN.slice(16)}`, '/receipts/[redacted]'],
    [`/v1/exports/exp_1/download?expires=1795442000&signature=${SIGNATURE}`, '/v1/exports/exp_1/download?expires=1795442000&signature=[redacted]'],
    [`/v1/exports/exp_1/download?signature=${SIGNATURE}&signature=x`, '/v1/exports/exp_1/download?signature=[redacted]&signature=[redacted]'],
    [`/v1/exports/exp_1/download?expires=1&sig%6Eature=${SIGNATURE}`, '/v1/exports/exp_1/download?expires=1&sig%6Eature=[redacted]'],
    [`/v1/exports/exp_1/download?expires=1&SIGNATURE=${SIGNATURE}`, '/v1/exports/exp_1/download?expires=1&SIGNATURE=[redacted]'],
    [`/v1/merchants?api_key=${KEY}`, '/v1/merchants?api_key=[redacted]'],
    [`/v1/merchants?q=${KEY}&limit=5`, '/v1/merchants?q=[redacted]&limit=5'],
    [`/v1/merchants?${KEY}`, '/v1/merchants?[redacted]'],
    [`/v1/merchants/${KEY}`, '/v1/merchants/[redacted]'],
    [`/v1/merchants/${encodeURIComponent(KEY).replace('_', '%5F')}`, '/v1/merchants/[redacted]'],
    ['/v1/merchants?token=abc&password=p&access_token=t', '/v1/merchants?token=[redacted]&password=[redacted]&access_token=[redacted]'],
  ])('%s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it.each([
    '/v1/receipts/rcp_IpYDlKYuO6XRnhjwFVgN',
    '/v1/receipts/rcp_IpYDlKYuO6XRnhjwFVgN/pdf',
    '/v1/operations?register_id=reg_1&limit=50&cursor=abc',
    '/v1/exports/exp_1/download?expires=1795442000',
    '/healthz',
    '/',
    '',
    '/v1/merchants?',
    '/receipts',
  ])('leaves %s as it is', (url) => {
    expect(redactUrl(url)).toBe(url);
  });

  it('leaves a URL as it is only where taking it apart would too', () => {
    const piece = fc.constantFrom('/', '?', '&', '=', '%', '%2F', '%72', 'receipts', 'RECEIPTS', 'svc_', 'SVC_', 'signature', 'v1', 'rcp_1', 'a', '_', 'é', ';');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const url = pieces.join('');
        expect(redactUrl(url)).toBe(redactUrlByParts(url));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('redactText', () => {
  it('redacts the URLs and keys in a message, and leaves file paths of a stack alone', () => {
    expect(redactText(`No route GET /receipts/${TOKEN}/x`)).toBe('No route GET /receipts/[redacted]/x');
    expect(redactText(`Reply was already sent in the "/receipts/${TOKEN}" (GET) route`)).toBe('Reply was already sent in the "/receipts/[redacted]" (GET) route');
    expect(redactText(`see http://localhost:3000/receipts/${TOKEN}/pdf`)).toBe('see http://localhost:3000/receipts/[redacted]/pdf');
    expect(redactText(`GET https://api.example.com/v1/exports/exp_1/download?expires=1&signature=${SIGNATURE}`)).toBe(
      'GET https://api.example.com/v1/exports/exp_1/download?expires=1&signature=[redacted]',
    );
    expect(redactText(`key ${KEY} refused`)).toBe('key [redacted] refused');
    const frame = '    at render (/work/app/src/receipts/renderReceiptPdf.ts:12:3)';
    expect(redactText(frame)).toBe(frame);
  });
});

describe('the log of the service', () => {
  function logger() {
    const lines: string[] = [];
    const log = pino({ serializers: logSerializers, hooks: { logMethod: redactLogArguments } }, { write: (line: string) => void lines.push(line) });
    return { log, text: () => lines.join('') };
  }

  it('serializes a request with its URL redacted', () => {
    const request = { method: 'GET', url: `/receipts/${TOKEN}/pdf`, host: 'localhost', ip: '127.0.0.1', socket: { remotePort: 5000 } };
    expect(logSerializers.req(request as never)).toEqual({
      method: 'GET',
      url: '/receipts/[redacted]/pdf',
      host: 'localhost',
      remoteAddress: '127.0.0.1',
      remotePort: 5000,
    });
  });

  it('serializes an error without the URLs in its message and stack, or the raw bytes of an unparsable request', () => {
    const { log, text } = logger();
    const error = Object.assign(new Error(`'/receipts/${TOKEN}' is not a valid url component`), {
      rawPacket: Buffer.from(`GET / HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\n`),
    });
    log.error({ err: error }, 'failed');
    expect(text()).toContain('is not a valid url component');
    expect(text()).not.toContain(TOKEN);
    expect(text()).not.toContain('rawPacket');
  });

  it('redacts messages, as Fastify writes some with the URL in them', () => {
    const { log, text } = logger();
    log.info(`Route GET:/receipts/${TOKEN} not found`);
    log.warn({ statusCode: 404 }, `Reply was already sent in the "/receipts/${TOKEN}" route`);
    log.info('Route %s not found', `/receipts/${TOKEN}`);
    expect(text()).toContain('Route GET:/receipts/[redacted] not found');
    expect(text()).toContain('"statusCode":404');
    expect(text()).not.toContain(TOKEN);
  });
});
