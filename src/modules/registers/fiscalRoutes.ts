import type { Register as RegisterRecord } from '../../db/generated/client.js';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { DEVICE_SIMULATIONS } from '../../fiscal/simulatedFaults.js';
import { notFound } from '../../domain/errors.js';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses, IdempotencyHeaders, StyleMHeaders } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { decommissionRegister, fiscalizeRegister, setDeviceSimulation } from './fiscalization.js';
import { registerResult } from './routes.js';
import { Register } from './schemas.js';

const SimulationBody = z.strictObject({ fiscal_device: z.enum(DEVICE_SIMULATIONS) });
const Simulation = z.object({ register_id: z.string(), fiscal_device: z.enum(DEVICE_SIMULATIONS) });

/** Register fiscalization (KassenSichV), decommission, and the sandbox's device simulation. */
export const registerFiscalRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Registers'];
  const config = { merchantScoped: true };

  // Fiscalize and decommission share everything but the transition they run.
  const transition = (action: string, operationId: string, summary: string, success: string, run: typeof fiscalizeRegister) =>
    app.post(
      `/registers/:id/${action}`,
      {
        config,
        schema: {
          tags,
          operationId,
          summary,
          headers: StyleMHeaders.merge(IdempotencyHeaders),
          params: IdParams,
          response: { 200: Register.describe(success), ...errorResponses(400, 403, 404, 409, 422) },
        },
      },
      (request, reply) =>
        runIdempotentService(
          app.ctx.idempotency, request, reply, { required: false },
          (register: RegisterRecord) => registerResult(register, 200),
          (finalize) => run(app.ctx, request.merchant, request.params.id, finalize),
        ),
    );

  transition(
    'fiscalize',
    'fiscalizeRegister',
    'Fiscalize a register: provisions its fiscal device (German locations: a software TSE and client)',
    'The register, fiscalized, with its fiscal device',
    fiscalizeRegister,
  );
  transition(
    'decommission',
    'decommissionRegister',
    'Decommission a fiscalized KassenSichV register; it cannot be fiscalized again',
    'The register, decommissioned (decommissionedAt set)',
    decommissionRegister,
  );

  app.put(
    '/registers/:id/simulation',
    {
      config,
      schema: {
        tags,
        operationId: 'setRegisterSimulation',
        summary: 'Sandbox only: make the register\'s fiscal device fail on demand (404 in production)',
        headers: StyleMHeaders,
        params: IdParams,
        body: SimulationBody,
        response: { 200: Simulation.describe("The register's device simulation now in force"), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      if (app.ctx.config.environment !== 'sandbox') throw notFound('route');
      const register = await setDeviceSimulation(app.ctx, request.merchant, request.params.id, request.body.fiscal_device);
      return { register_id: register.id, fiscal_device: request.body.fiscal_device };
    },
  );
};
