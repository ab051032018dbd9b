import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses, StyleMHeaders } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { presentCryptoMaterial } from './cryptoMaterialPresenter.js';
import { RksvCryptoMaterial } from './cryptoMaterialSchemas.js';
import { getRksvCryptoMaterial } from './cryptoMaterialService.js';

/** An Austrian register's crypto material (DESIGN "Austria: RKSV"). */
export const rksvCryptoMaterialRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/registers/:id/rksv/crypto-material',
    {
      config: { merchantScoped: true },
      schema: {
        tags: ['Registers'],
        operationId: 'getRksvCryptoMaterial',
        summary: "Get an RKSV register's crypto material (cryptographicMaterialContainer.json)",
        description:
          'The AES key and the public key of the register\'s signature device, in the format of the BMF verification tool. ' +
          'FinanzOnline registration and auditors need it; a register taken out of service keeps it. ' +
          'A register that is not a fiscalized RKSV register is 422 validation_error naming register_id.',
        headers: StyleMHeaders,
        params: IdParams,
        response: {
          200: RksvCryptoMaterial.describe('The crypto-material container; it holds the AES key, so it is never cached'),
          ...errorResponses(400, 403, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const material = await getRksvCryptoMaterial(app.ctx, request.merchant, request.params.id);
      reply.header('cache-control', 'private, no-store');
      return presentCryptoMaterial(material);
    },
  );
};
