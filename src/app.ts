// Where a route lives: the handlers of /v1/<resource>/... are in src/modules/<resource>/,
// Style M in routes.ts (registers: also fiscalRoutes.ts, and the RKSV-only ones, null receipts
// and /registers/{id}/rksv/..., in modules/rksv/), Style O in styleORoutes.ts; e.g.
// GET /v1/operations/{id} is in modules/operations/routes.ts (with X-Service-Merchant) and
// modules/operations/styleORoutes.ts (without it). Style M routes are registered below, under
// /v1 and by modules/receipts (which also serves the public /receipts/{token}); every Style O
// route through modules/styleO/routes.ts, within its organization scope; then /v1/events and
// /v1/webhook-endpoints (modules/events, modules/webhookEndpoints), one route each for both
// styles. Outside /v1: modules/health, modules/openapi, modules/admin (/admin/v1).
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { Database } from './db/database.js';
import { authPlugin } from './http/auth.js';
import { clientErrorHandler, errorHandlerPlugin, frameworkErrorHandler } from './http/errorHandler.js';
import { invalidRequest } from './domain/errors.js';
import { IdempotencyStore } from './http/idempotency.js';
import { logOptions } from './http/loggerOptions.js';
import { nulGuardPlugin } from './http/nulGuard.js';
import { rateLimitPlugin, type WindowCounter } from './http/rateLimit.js';
import { requestIdFor } from './http/requestId.js';
import { responseSerializer } from './http/responseSerializer.js';
import { createExportWorker } from './exports/createExportWorker.js';
import { createTransmissionWorker } from './fiscal/rt/transmission/createTransmissionWorker.js';
import { createDeliveryWorker } from './outbox/createDeliveryWorker.js';
import { createInvoiceTransmissionWorker } from './einvoicing/transmission/createInvoiceTransmissionWorker.js';
import { InvoiceChannels } from './einvoicing/channels/invoiceChannels.js';
import { channelSettingsOf } from './einvoicing/jurisdictions/channelSettings.js';
import { SecretBox } from './lib/secretBox.js';
import { exportLinkSigner } from './lib/signedUrl.js';
import { exportRoutes } from './modules/exports/routes.js';
import { dailyClosureRoutes } from './modules/dailyClosures/routes.js';
import { AutomaticClosures } from './modules/dailyClosures/automaticClosures.js';
import { ExpiryScan } from './modules/expiryScan/expiryScan.js';
import { createSubmissionWorker } from './fiscal/rksv/finanzOnline/createSubmissionWorker.js';
import { adminRoutes } from './modules/admin/routes.js';
import { healthRoutes } from './modules/health/routes.js';
import { locationRoutes } from './modules/locations/routes.js';
import { merchantRoutes } from './modules/merchants/routes.js';
import { openApiOptions } from './modules/openapi/document.js';
import { openApiRoutes } from './modules/openapi/routes.js';
import { operationRoutes } from './modules/operations/routes.js';
// Before receipts and registers: openapi.json lists the schemas that have an id in the order their modules load.
import { styleORoutes } from './modules/styleO/routes.js';
import { styleConstraint } from './modules/styleO/styleConstraint.js';
import { receiptRoutes } from './modules/receipts/routes.js';
import { sandboxConsoleRoutes } from './modules/sandboxConsole/routes.js';
import { FiscalRetryWorker } from './modules/refunds/fiscalRetry.js';
import { ImplicitAcceptances } from './modules/invoices/implicitAcceptance.js';
import { registerFiscalRoutes } from './modules/registers/fiscalRoutes.js';
import { registerRoutes } from './modules/registers/routes.js';
import { rksvCryptoMaterialRoutes } from './modules/rksv/cryptoMaterialRoutes.js';
import { nullReceiptRoutes } from './modules/rksv/nullReceiptRoutes.js';
// Last: their schemas come after every other in openapi.json.
import { recordClosureOutcome } from './modules/events/dailyClosureEvents.js';
import { recordExportFinished } from './modules/events/exportEvents.js';
import { recordInvoiceStateChanged } from './modules/events/invoiceEvents.js';
import { eventRoutes } from './modules/events/routes.js';
import { webhookEndpointRoutes } from './modules/webhookEndpoints/routes.js';
import { sdiCoopRoutes } from './modules/sdiCoop/routes.js';

export interface AppDependencies {
  config: Config;
  database: Database;
  secretsKey: Buffer;
  /** Where the log goes; standard output when absent. */
  logStream?: DestinationStream;
  /** The service's clock; the system clock when absent (tests move it across month ends). */
  clock?: () => Date;
  /** Rate-limit counters without Redis (the primary's, in a server process); this process's memory when absent. */
  rateLimitCounter?: WindowCounter;
  /** Whether every response is checked against its schema (responseSerializer.ts); true unless the server says otherwise. */
  checkResponses?: boolean;
}

/** Fastify's trustProxy for TRUST_PROXY: a number of hops trusts that many proxies nearest the service, whatever their addresses. */
const trustedProxies = (trust: Config['trustProxy']) => (typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust);

export async function buildApp({ config, database, secretsKey, logStream, clock = () => new Date(), rateLimitCounter, checkResponses = true }: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    ...logOptions(config.logLevel, logStream),
    genReqId: requestIdFor,
    bodyLimit: config.bodyLimitBytes,
    // Behind proxies the client's address (rate limits, logs) is the one they forwarded.
    trustProxy: trustedProxies(config.trustProxy),
    // A client that reconnects now and then is dealt to the next server process (serverProcesses.ts).
    maxRequestsPerSocket: 1000,
    return503OnClosing: false,
    // Node answers an HTTP/1.1 request without Host with a bare 400 of its own; the onRequest hook answers it instead.
    http: { requireHostHeader: false },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    routerOptions: { ignoreTrailingSlash: true, constraints: { style: styleConstraint } },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializer(checkResponses));

  const secrets = new SecretBox(secretsKey);
  const ctx: AppContext = {
    config,
    database,
    db: database.prisma,
    sql: database.sql,
    secrets,
    invoiceChannels: new InvoiceChannels(database.prisma, secrets, channelSettingsOf(config)),
    clock,
    idempotency: new IdempotencyStore(database.sql, { retentionHours: config.idempotencyRetentionHours }),
    publicBaseUrl: config.publicBaseUrl,
    urlSigner: exportLinkSigner(secretsKey),
  };
  app.decorate('ctx', ctx);
  const fiscalRetry = new FiscalRetryWorker(ctx, app.log);
  app.addHook('onReady', async () => fiscalRetry.start());
  app.addHook('onClose', async () => fiscalRetry.stop());
  const automaticClosures = new AutomaticClosures(ctx, app.log);
  app.addHook('onReady', async () => automaticClosures.start());
  app.addHook('onClose', async () => automaticClosures.stop());
  const implicitAcceptances = new ImplicitAcceptances(ctx, app.log);
  app.addHook('onReady', async () => implicitAcceptances.start());
  app.addHook('onClose', async () => implicitAcceptances.stop());
  const expiryScan = new ExpiryScan(ctx, app.log);
  app.addHook('onReady', async () => expiryScan.start());
  app.addHook('onClose', async () => expiryScan.stop());
  if (config.exportWorker === 'inline') {
    const links = { publicBaseUrl: ctx.publicBaseUrl, signer: ctx.urlSigner, ttlSeconds: config.exportUrlTtlSeconds };
    const worker = createExportWorker({ db: ctx.db, sql: ctx.sql, secrets: ctx.secrets }, config, app.log, recordExportFinished(links));
    ctx.exportWorker = worker;
    app.addHook('onReady', async () => worker.start());
    app.addHook('onClose', async () => worker.stop());
    const transmissions = createTransmissionWorker(ctx.db, config, app.log, clock, (tx, closureId) => recordClosureOutcome(tx, closureId, ctx.publicBaseUrl));
    ctx.transmissionWorker = transmissions;
    app.addHook('onReady', async () => transmissions.start());
    app.addHook('onClose', async () => transmissions.stop());
    const submissions = createSubmissionWorker(ctx.db, ctx.secrets, config, app.log, clock);
    app.addHook('onReady', async () => submissions.start());
    app.addHook('onClose', async () => submissions.stop());
    const deliveries = createDeliveryWorker(ctx.db, ctx.secrets, config, app.log);
    app.addHook('onReady', async () => deliveries.start());
    app.addHook('onClose', async () => deliveries.stop());
    const invoiceTransmissions = createInvoiceTransmissionWorker(ctx.db, config, app.log, recordInvoiceStateChanged(ctx.publicBaseUrl), ctx.invoiceChannels, clock);
    ctx.invoiceTransmissionWorker = invoiceTransmissions;
    app.addHook('onReady', async () => invoiceTransmissions.start());
    app.addHook('onClose', async () => invoiceTransmissions.stop());
  }
  app.addHook('onClose', async () => ctx.invoiceChannels.close());

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    // RFC 9112 section 3.2: a server must answer an HTTP/1.1 request without Host with 400 (HTTP/1.0 needs none).
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw invalidRequest('An HTTP/1.1 request must carry a Host header', { header: 'Host' });
    }
  });

  // Bodiless POSTs (fiscalize, decommission, Style O complete) may still say application/json.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') return done(null, undefined);
    return parseJson(request, text, done);
  });

  await app.register(errorHandlerPlugin);
  await app.register(swagger, openApiOptions(config));
  await app.register(rateLimitPlugin, { perSecond: config.rateLimitPerSecond, redisUrl: config.redisUrl, localCounter: rateLimitCounter });
  await app.register(authPlugin, { sql: ctx.sql, serviceEnv: config.environment });
  await app.register(nulGuardPlugin);

  await app.register(healthRoutes);
  await app.register(openApiRoutes);
  // Registered without ADMIN_TOKEN too, so the document describes it; it then answers 404 to every call.
  await app.register(adminRoutes, { prefix: '/admin/v1', adminToken: config.adminToken });
  await app.register(
    async (v1) => {
      await v1.register(merchantRoutes);
      await v1.register(locationRoutes);
      await v1.register(registerRoutes);
      await v1.register(registerFiscalRoutes);
      await v1.register(rksvCryptoMaterialRoutes);
      await v1.register(nullReceiptRoutes);
      await v1.register(operationRoutes);
      await v1.register(exportRoutes);
      await v1.register(dailyClosureRoutes);
    },
    { prefix: '/v1' },
  );
  await app.register(receiptRoutes);
  await app.register(sandboxConsoleRoutes);
  await app.register(styleORoutes);
  await app.register(eventRoutes);
  await app.register(webhookEndpointRoutes);
  await app.register(sdiCoopRoutes);
  return app;
}
