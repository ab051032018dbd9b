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
import { AuthoritySimulationMode, FiscalizeBody, Register } from './schemas.js';

const SimulationBody = z.strictObject({
  fiscal_device: z.enum(DEVICE_SIMULATIONS),
  authority: AuthoritySimulationMode.optional(),
});
const Simulation = z.object({ register_id: z.string(), fiscal_device: z.enum(DEVICE_SIMULATIONS), authority: AuthoritySimulationMode.optional() });

/** Register fiscalization, decommission (KassenSichV), and the sandbox's device simulation. */
export const registerFiscalRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Registers'];
  const config = { merchantScoped: true };

  app.post(
    '/registers/:id/fiscalize',
    {
      config,
      schema: {
        tags,
        operationId: 'fiscalizeRegister',
        summary: 'Fiscalize a register: provisions its fiscal device by the location’s country (DEU: software TSE or fiskaly SIGN DE; AUT: RKSV signature unit; ITA: RT)',
        description:
          'No body, or the block of the register’s regime. German register: {tse: {driver: "software"}} (the default) or ' +
          '{tse: {driver: "fiskaly_sign_de", api_key, api_secret, tss_id, client_id, base_url?}}: the credentials must get a token, the TSS must be ' +
          'INITIALIZED and the client REGISTERED, else 422 validation_error naming the field (tse.api_key, tse.tss_id, tse.client_id, tse.base_url) ' +
          'with fiskaly’s code in details.vendor_code; the credentials are sealed and never shown. Italian register: {rt: {driver: "simulator"}} ' +
          '(the default) or {rt: {driver: "epson_fpmate", url, serial, device_id?, departments?}}.',
        headers: StyleMHeaders.merge(IdempotencyHeaders),
        params: IdParams,
        body: FiscalizeBody,
        response: { 200: Register.describe('The register, fiscalized, with its fiscal device'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, { required: false },
        (register: RegisterRecord) => registerResult(register, 200),
        (finalize) => fiscalizeRegister(app.ctx, request.merchant, request.params.id, request.body, finalize),
      ),
  );

  app.post(
    '/registers/:id/decommission',
    {
      config,
      schema: {
        tags,
        operationId: 'decommissionRegister',
        summary: 'Decommission a fiscalized KassenSichV register; it cannot be fiscalized again',
        headers: StyleMHeaders.merge(IdempotencyHeaders),
        params: IdParams,
        response: { 200: Register.describe('The register, decommissioned (decommissionedAt set)'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, { required: false },
        (register: RegisterRecord) => registerResult(register, 200),
        (finalize) => decommissionRegister(app.ctx, request.merchant, request.params.id, finalize),
      ),
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
        response: { 200: Simulation.describe("The register's device simulation now in force"), ...errorResponses(400, 403, 404, 422) },
      },
    },
    async (request) => {
      if (app.ctx.config.environment !== 'sandbox') throw notFound('route');
      const { fiscal_device, authority } = request.body;
      const register = await setDeviceSimulation(app.ctx, request.merchant, request.params.id, fiscal_device, authority);
      return { register_id: register.id, fiscal_device, ...(authority ? { authority } : {}) };
    },
  );
};
