import { ApiError } from './errors.js';

export const etagOf = (resourceVersion: number): string => `"${resourceVersion}"`;

const IF_MATCH = /^"([1-9][0-9]{0,9})"$/;

/** Contract 5.8: If-Match must be a quoted positive integer; missing is 428, malformed 400. */
export function parseIfMatch(header: string | string[] | undefined, required: true): number;
export function parseIfMatch(header: string | string[] | undefined, required: false): number | undefined;
export function parseIfMatch(header: string | string[] | undefined, required: boolean): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') {
    if (!required) return undefined;
    throw new ApiError(428, 'precondition_required', 'If-Match header with the current resource_version is required', {
      header: 'If-Match',
    });
  }
  const match = IF_MATCH.exec(value.trim());
  if (!match) {
    throw new ApiError(400, 'invalid_request', 'If-Match must be a quoted positive integer such as "1"', { header: 'If-Match' });
  }
  return Number(match[1]);
}
