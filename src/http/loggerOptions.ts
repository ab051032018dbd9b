import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';
import { logSerializers, redactLogArguments } from './logRedaction.js';

/**
 * One line a request at `info`, written when it completes (a canonical log line): the request
 * (method, redacted URL, host, client), its status and its time together, so a request is
 * one record to search and the log costs one write a request instead of two. Fastify's
 * `incoming request` line is kept at `debug`, for following a request that never completes.
 */
export class CanonicalRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/**
 * The request log of the service as Fastify takes it: credentials, hosted-receipt tokens, download
 * signatures and API keys never reach it. A request is logged by its serializer, which writes no
 * header at all (so no path redaction either: pino redacts what the serializer returns).
 */
export function logOptions(level: string, stream?: DestinationStream): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  return {
    logger: {
      level,
      serializers: logSerializers,
      hooks: { logMethod: redactLogArguments },
      ...(stream ? { stream } : {}),
    },
    logController: new CanonicalRequestLog(),
  };
}
