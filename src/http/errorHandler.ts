import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import fp from 'fastify-plugin';
import { isDatabaseUnavailable } from '../db/databaseUnavailable.js';
import { randomBase62 } from '../lib/ids.js';
import { DomainError, invalidRequest, type DomainErrorKind } from '../domain/errors.js';
import { ApiError, noRoute, serviceUnavailable } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The media types the route's content type parsers take, named in the 400 to a body of another type; unset: JSON. */
    bodyMediaTypes?: readonly string[];
  }
}

/** What the app's own parser takes (app.ts), for every route that names nothing else. */
const JSON_BODY: readonly string[] = ['application/json'];

/** "a", "a or b", "a, b or c" */
const oneOf = (choices: readonly string[]) => (choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : choices[0]);

interface SchemaIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** "/line_items/0/taxes/1/rate" -> "line_items[0].taxes[1].rate" */
export function toFieldPath(segments: readonly (string | number)[]): string {
  return segments.reduce<string>((path, segment) => {
    if (typeof segment === 'number' || /^\d+$/.test(String(segment))) return `${path}[${segment}]`;
    return path ? `${path}.${segment}` : String(segment);
  }, '');
}

function issueField(issue: SchemaIssue, context: string | undefined): string {
  const segments = issue.instancePath.split('/').filter(Boolean);
  if (issue.keyword === 'unrecognized_keys' && Array.isArray(issue.params.keys) && issue.params.keys.length > 0) {
    segments.push(String(issue.params.keys[0]));
  }
  if (issue.keyword === 'invalid_union' && typeof issue.params.discriminator === 'string' && !segments.length) {
    segments.push(issue.params.discriminator);
  }
  const field = toFieldPath(segments);
  if (context === 'headers') return field;
  return field || context || 'body';
}

function describeIssue(issue: SchemaIssue, field: string): string {
  if (issue.keyword === 'unrecognized_keys') return `Unknown field: ${field}`;
  return `${field}: ${issue.message ?? 'is invalid'}`;
}

/** The HTTP status of each kind of domain error (contract section 7). */
export const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  unprocessable: 422,
  not_implemented: 501,
};

/** The answer to a domain error: its kind's status and the envelope of its code, message and details. */
export function apiErrorOf(error: DomainError): ApiError {
  const apiError = new ApiError(STATUS_OF_KIND[error.kind], error.code, error.message, error.details);
  return error.transient ? apiError.markTransient() : apiError;
}

/** Turns every failure into the contract's error envelope. */
function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) return apiErrorOf(error);
  // A handler may throw anything (a string, null); the checks below expect an object.
  if (typeof error !== 'object' || error === null) {
    request.log.error({ thrown: String(error) }, 'unhandled non-error value');
    return new ApiError(500, 'internal_error', 'Internal server error');
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = (error as { validationContext?: string }).validationContext;
    const issues = error.validation.map((issue) => {
      const field = issueField(issue as unknown as SchemaIssue, context);
      return { field, location: context ?? 'body', message: describeIssue(issue as unknown as SchemaIssue, field) };
    });
    return apiErrorOf(invalidRequest(issues[0].message, { field: issues[0].field, location: issues[0].location, issues }));
  }
  if (isResponseSerializationError(error)) {
    request.log.error({ err: error, issues: error.cause?.issues }, 'response does not match its schema');
    return new ApiError(500, 'internal_error', 'Internal server error');
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    return serviceUnavailable('The database is temporarily unavailable; retry shortly');
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return apiErrorOf(invalidRequest('The request body is not valid JSON', { field: 'body' }));
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return apiErrorOf(invalidRequest('The request body is not as long as its Content-Length says', { header: 'Content-Length' }));
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return apiErrorOf(invalidRequest(`Content-Type must be ${oneOf(request.routeOptions.config.bodyMediaTypes ?? JSON_BODY)}`, { header: 'Content-Type' }));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'payload_too_large', 'The request body is larger than the service accepts');
  }
  if (error instanceof SyntaxError) return apiErrorOf(invalidRequest('The request body is not valid JSON', { field: 'body' }));
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError(status, 'invalid_request', error.message);
  request.log.error({ err: error }, 'unhandled error');
  return new ApiError(500, 'internal_error', 'Internal server error');
}

export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  // Also set here: errors raised before the onRequest hooks (framework errors) carry them too.
  reply.header('x-request-id', reply.request.id);
  reply.header('x-content-type-options', 'nosniff');
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.statusCode).type('application/json').send(error.toBody());
}

/**
 * Fastify's `frameworkErrors` option: errors raised before routing (an undecodable
 * URL, an over-long path parameter) otherwise get Fastify's own body.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiError =
    error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? apiErrorOf(invalidRequest('The request path is malformed or a path parameter is too long', { location: 'path' }))
      : new ApiError(500, 'internal_error', 'Internal server error');
  if (apiError.statusCode >= 500) request.log.error({ err: error }, 'framework error');
  sendApiError(reply, apiError);
}

/**
 * Fastify's `clientErrorHandler` option: a request Node's HTTP parser rejects (a
 * malformed header, a bad Content-Length or chunk, headers over the size limit)
 * never reaches routing, and Fastify's default answer is its own body
 * ({error, message, statusCode}) without X-Request-Id. Answer with the envelope.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError(431, 'invalid_request', 'The request headers are larger than the service accepts')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError(408, 'request_timeout', 'The request was not received in time')
        : apiErrorOf(invalidRequest('The request is not valid HTTP/1.1'));
  // The request's own X-Request-Id was never parsed: issue one, as for any request without it.
  const requestId = `req_${randomBase62(24)}`;
  this.log.debug({ err: error, reqId: requestId }, 'unparsable request');
  if (socket.writable) {
    const body = JSON.stringify(apiError.toBody());
    socket.write(
      `HTTP/1.1 ${apiError.statusCode} ${STATUS_CODES[apiError.statusCode]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

export const errorHandlerPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError.statusCode >= 500) request.log.warn({ code: apiError.code }, apiError.message);
    return sendApiError(reply, apiError);
  });
  app.setNotFoundHandler((request, reply) => sendApiError(reply, noRoute(request.method, request.url)));
});
