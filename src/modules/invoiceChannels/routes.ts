import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses } from '../common/responses.js';
import { OrganizationParams, STYLE_O_IDEMPOTENCY, StyleOHeaders, StyleOMutationHeaders } from '../styleO/schemas.js';
import { STYLE_O } from '../styleO/styleConstraint.js';
import { invoiceChannelResult, presentInvoiceChannel, type ConfiguredChannel } from './presenter.js';
import { DeletedInvoiceChannel, InvoiceChannelList, InvoiceChannelParams, InvoiceChannelView, PutInvoiceChannelBody } from './schemas.js';
import { deleteInvoiceChannel, getInvoiceChannel, listInvoiceChannels, putInvoiceChannel } from './service.js';

/** Style O invoice channels under /v1/organizations/{organizationId}: where the organization's invoices of a jurisdiction go. */
export const invoiceChannelRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Invoice channels'];
  const base = '/v1/organizations/:organizationId/invoice-channels';

  app.put(
    `${base}/:jurisdiction`,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'putInvoiceChannel',
        summary: "Configure the channel of the organization's invoices of a jurisdiction (Style O)",
        description:
          "The driver checks the account before anything is stored. acube: a login must give a token: 422 invoice_channel_credentials_rejected (details.field password), 422 invoice_channel_account_disabled (email), 422 invoice_channel_unreachable (login_url) when the intermediary cannot be asked. smtp: the mail server must accept the login: 422 invoice_channel_credentials_rejected (password), invoice_channel_unreachable (host), invoice_channel_tls_failed (security) when the connection cannot be protected as configured, invoice_channel_insecure (security) without TLS in production. sdicoop, checked without calling the SdI: 422 invoice_channel_endpoint_not_https (endpoint), invoice_channel_certificate_invalid, invoice_channel_certificate_not_yet_valid, invoice_channel_certificate_expired (client_certificate), invoice_channel_private_key_invalid, invoice_channel_private_key_mismatch (client_private_key), invoice_channel_ca_certificate_invalid (ca_certificates, details.index); its settings give the notification_url to register with the SdI for the TrasmissioneFatture service. 422 invoice_channel_driver_unsupported (driver) for a driver that does not serve the jurisdiction or this deployment (sandbox: the sandbox only). Secrets are sealed at rest and never returned. Invoices submitted from now on go through this channel; invoices already received keep the channel that received them.",
        headers: StyleOMutationHeaders,
        params: InvoiceChannelParams,
        body: PutInvoiceChannelBody,
        response: { 200: InvoiceChannelView.describe('The channel as configured'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
        (channel: ConfiguredChannel) => invoiceChannelResult(channel, app.ctx.publicBaseUrl),
        (finalize) => putInvoiceChannel(app.ctx, request.merchant, request.params.jurisdiction, request.body, finalize),
      ),
  );

  app.get(
    base,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'listInvoiceChannels',
        summary: "List the organization's configured invoice channels (Style O)",
        description: 'A jurisdiction without one uses the deployment\'s default: for IT the SdI simulator in the sandbox; in production, none (Italian invoices stay submitted with SDI_NOT_CONFIGURED); for DE none (German invoices are transmitted when submitted).',
        headers: StyleOHeaders,
        params: OrganizationParams,
        response: { 200: InvoiceChannelList.describe('The channels'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => ({ object: 'list' as const, data: (await listInvoiceChannels(app.ctx, request.merchant)).map((channel) => presentInvoiceChannel(channel, app.ctx.publicBaseUrl)) }),
  );

  app.get(
    `${base}/:jurisdiction`,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'getInvoiceChannel',
        summary: "Get the organization's channel for a jurisdiction (Style O)",
        description: '404 when none is configured (the deployment\'s default carries the invoices).',
        headers: StyleOHeaders,
        params: InvoiceChannelParams,
        response: { 200: InvoiceChannelView.describe('The channel'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => presentInvoiceChannel(await getInvoiceChannel(app.ctx, request.merchant, request.params.jurisdiction), app.ctx.publicBaseUrl),
  );

  app.delete(
    `${base}/:jurisdiction`,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'deleteInvoiceChannel',
        summary: "Remove the organization's channel for a jurisdiction (Style O)",
        description: "Invoices submitted from now on go through the deployment's default again; invoices already received keep the channel that received them. 404 when none is configured.",
        headers: StyleOHeaders,
        params: InvoiceChannelParams,
        response: { 200: DeletedInvoiceChannel.describe('The channel was removed'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      await deleteInvoiceChannel(app.ctx, request.merchant, request.params.jurisdiction);
      return { object: 'invoice_channel' as const, organization_id: request.merchant.id, jurisdiction: request.params.jurisdiction, deleted: true as const };
    },
  );
};
