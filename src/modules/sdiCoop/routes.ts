import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SDICOOP_NOTIFICATION_ROUTE } from '../../einvoicing/sdi/sdiCoop/notificationUrl.js';
import { sdiPushAnswer, sdiPushNotKept } from './presenter.js';
import { receiveSdiPush } from './service.js';

/** A notification is a few kilobytes; an NS's error list or an MTOM envelope stays far below this. */
const PUSH_BODY_LIMIT_BYTES = 1024 * 1024;

/** SOAP 1.1, plain or as MTOM. */
const SOAP_MEDIA_TYPES = ['text/xml', 'multipart/related'];

/**
 * The TrasmissioneFatture service of each sdicoop configuration, where the SdI pushes its
 * notifications (SOAP 1.1, text/xml or MTOM multipart/related). No API key: the SdI proves
 * itself with its client certificate to the TLS terminator in front of the service
 * (docs/regimes/italy.md), and the configuration's id in the path is random. Hidden from the
 * OpenAPI document: it is the SdI's interface, not the API.
 */
export const sdiCoopRoutes: FastifyPluginAsyncZod = async (app) => {
  // Only SOAP bodies, kept as bytes for the reader; scoped to this plugin.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(SOAP_MEDIA_TYPES, { parseAs: 'buffer', bodyLimit: PUSH_BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body));

  app.post(
    SDICOOP_NOTIFICATION_ROUTE,
    { config: { auth: 'public', bodyMediaTypes: SOAP_MEDIA_TYPES }, schema: { hide: true, params: z.object({ configId: z.string() }) } },
    async (request, reply) => {
      const pushed = { contentType: request.headers['content-type'], soapAction: request.headers.soapaction as string | undefined, body: request.body as Buffer };
      let answer;
      try {
        answer = sdiPushAnswer(await receiveSdiPush(app.ctx, request.params.configId, pushed));
      } catch (error) {
        request.log.error({ err: error, config_id: request.params.configId }, 'an SdI notification could not be stored');
        answer = sdiPushNotKept();
      }
      return reply.code(answer.statusCode).headers(answer.headers).send(answer.body);
    },
  );
};
