import type { IncomingMessage } from 'node:http';
import { randomBase62 } from '../lib/ids.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echo the client's X-Request-Id when it is sane, otherwise issue one. */
export function requestIdFor(request: IncomingMessage): string {
  const header = request.headers['x-request-id'];
  const candidate = Array.isArray(header) ? header[0] : header;
  return candidate && SANE_REQUEST_ID.test(candidate) ? candidate : `req_${randomBase62(24)}`;
}
