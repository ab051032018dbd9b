import type { FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';
import { logSerializers, redactLogArguments } from './logRedaction.js';

/** The request log of the service as Fastify takes it: credentials, hosted-receipt tokens, download signatures and API keys never reach it. */
export function loggerOptions(level: string, stream?: DestinationStream): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers["idempotency-key"]'], censor: '[redacted]' },
    serializers: logSerializers,
    hooks: { logMethod: redactLogArguments },
    ...(stream ? { stream } : {}),
  };
}
