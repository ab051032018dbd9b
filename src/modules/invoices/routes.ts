import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Invoice as InvoiceRecord } from '../../db/generated/client.js';
import { notFound } from '../../domain/errors.js';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { EmptyBody } from '../refunds/schemas.js';
import { STYLE_O_IDEMPOTENCY, StyleOHeaders, StyleOMutationHeaders } from '../styleO/schemas.js';
import { STYLE_O } from '../styleO/styleConstraint.js';
import { cancelInvoice } from './cancellation.js';
import { invoiceResult, presentInvoice } from './presenter.js';
import { CreateInvoiceBody, Invoice, InvoiceList, ListInvoicesQuery, SimulateInvoiceBody, UpdateInvoiceBody } from './schemas.js';
import { createInvoice, getInvoice, invoiceDocument, invoicePdf, listInvoices, submitInvoice, updateInvoice } from './service.js';
import { simulateRecipient } from './simulation.js';

const STATES =
  'States (contract 3.5): draft -> submitted -> transmitted (the authority has it; DE at once, or with an smtp channel once the buyer\'s mail server took it) -> delivered (IT, RC) -> accepted; transmitted -> undeliverable (IT, MC) or rejected_by_authority (IT, NS); submitted -> undeliverable (DE smtp: the mail server refused the recipient for good); cancellation_requested -> cancelled.';

const ElectronicDocument = {
  description: 'The document exactly as submitted (FatturaPA or XRechnung), or, signed, its CAdES-BES .p7m file',
  content: { 'application/xml': { schema: z.string() }, 'application/pkcs7-mime': { schema: z.string().meta({ format: 'binary' }) } },
};
const PdfDocument = { description: 'The invoice as PDF', content: { 'application/pdf': { schema: z.string().meta({ format: 'binary' }) } } };

/** The e-invoicing resource (Style O; contract 2.10, 3.5, 4.3; DESIGN "E-invoicing"). */
export const invoiceRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Invoices'];
  const baseUrl = app.ctx.publicBaseUrl;
  const present = (status: number) => (invoice: InvoiceRecord) => invoiceResult(invoice, status, baseUrl);

  app.post(
    '/v1/invoices',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'createInvoice',
        summary: 'Create an invoice, as a draft or submitted at once (Style O)',
        description: [
          'The seller defaults to the organization: its legal name, address and the VAT id of its fiscal identity of the jurisdiction\'s country (ITA for IT, DEU for DE); fields sent in seller are merged over them.',
          'Prices are net (unit_price_net, minor units); discounts by amount or rate; VAT is computed once per (rate, category, natura) row, half up. The VAT category follows from the rate and nature_code unless tax.category names it.',
          'The invoice is checked before anything is written: the generic rules (a credit_note names a submitted original of this organization in references.original_invoice_id, installments add up, ...) and the format\'s (FatturaPA: routing.codice_destinatario, natura for rate 0, the buyer\'s VAT id or codice fiscale; XRechnung: routing.buyer_reference, seller contact, electronic addresses, payment instructions); 422 validation_error names the first field in details.field, all in details.violations.',
          'submit: true submits it in the same transaction (see POST /v1/invoices/{id}/submit).',
        ].join(' '),
        headers: StyleOMutationHeaders,
        body: CreateInvoiceBody,
        response: { 201: Invoice.describe('The invoice: draft, or submitted with submit: true'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY, present(201), (finalize) =>
        createInvoice(app.ctx, request.merchant, request.body, finalize),
      ),
  );

  app.get(
    '/v1/invoices',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'listInvoices',
        summary: 'List the organization\'s invoices, newest first (Style O)',
        description:
          'organization_id names the organization the call acts for (another is 404). Filters combine; from and to bound created_at inclusively. limit 1-200 (default 50); pass the previous page\'s cursor to continue: pages never skip or repeat an invoice, also while invoices are being added.',
        headers: StyleOHeaders,
        querystring: ListInvoicesQuery,
        response: { 200: InvoiceList.describe('A page of invoices'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const { invoices, cursor } = await listInvoices(app.ctx, request.merchant, request.query);
      return { object: 'list' as const, data: invoices.map((invoice) => presentInvoice(invoice, baseUrl)), cursor };
    },
  );

  app.get(
    '/v1/invoices/:id',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'getInvoice',
        summary: 'Get an invoice (Style O)',
        description: STATES,
        headers: StyleOHeaders,
        params: IdParams,
        response: { 200: Invoice.describe('The invoice'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => presentInvoice(await getInvoice(app.ctx, request.merchant, request.params.id), baseUrl),
  );

  app.patch(
    '/v1/invoices/:id',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'updateInvoice',
        summary: 'Change a draft invoice (Style O)',
        description:
          'Each field sent replaces the stored one (seller: merged over the organization\'s defaults again; metadata: keys merged, null removes one); the amounts are computed and the invoice checked again (422 validation_error naming the field). Only drafts: 409 invoice_invalid_state otherwise.',
        headers: StyleOMutationHeaders,
        params: IdParams,
        body: UpdateInvoiceBody,
        response: { 200: Invoice.describe('The draft as changed'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY, present(200), (finalize) =>
        updateInvoice(app.ctx, request.merchant, request.params.id, request.body, finalize),
      ),
  );

  app.post(
    '/v1/invoices/:id/submit',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'submitInvoice',
        summary: 'Submit a draft invoice (Style O)',
        description: [
          'In one transaction: checks the invoice again (an issue_date after today is refused; without one it is today in the jurisdiction), assigns invoice_number <series>/<year>/<n> (n gapless per organization, series and year), builds the document (IT: FatturaPA 1.2.3, FPR12 for a 7-character codice_destinatario, FPA12 for 6; DE: XRechnung 3 CII) and stores it unchanged, and sets fiscal.chain_hash over the stored bytes.',
          'IT with an active fiscal certificate that has a private key: the document is signed CAdES-BES and stored as <name>.xml.p7m (fiscal.jurisdiction_data.file_name); an FPA12 invoice without one is 422 fiscal_certificate_required (details.field routing.codice_destinatario). When the organization has certificates for the jurisdiction and none is active (expired or revoked): 422 fiscal_certificate_expired. Nothing is numbered then.',
          'IT: the SdI receives it in the background (transmitted, fiscal.authority_identifier), then notifies delivered, undeliverable or rejected_by_authority (fiscal.fiscal_errors). DE: transmitted at once; with the organization\'s smtp channel, e-mailed to buyer.email in the background (transmitted, fiscal.authority_identifier the Message-ID; undeliverable on a permanent refusal).',
          'Body {} or none. Only drafts: 409 invoice_invalid_state otherwise.',
        ].join(' '),
        headers: StyleOMutationHeaders,
        params: IdParams,
        body: EmptyBody,
        response: { 200: Invoice.describe('The invoice, submitted (DE without a channel: transmitted)'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY, present(200), (finalize) =>
        submitInvoice(app.ctx, request.merchant, request.params.id, finalize),
      ),
  );

  app.post(
    '/v1/invoices/:id/cancel',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'cancelInvoice',
        summary: 'Cancel an invoice: a draft at once, an issued one by credit note (Style O)',
        description: [
          'draft -> cancelled. transmitted, delivered, accepted or undeliverable: a credit note with the same lines, referring to the invoice, is created and submitted in the same transaction (cancellation_credit_note_id names it); the invoice is cancellation_requested and becomes cancelled when the credit note is delivered (IT) or transmitted (DE, at once).',
          'rejected_by_authority is 409 invoice_invalid_state: it never existed fiscally (correct it and submit a new invoice); so are submitted, cancellation_requested, cancelled, and a credit note. Body {} or none.',
        ].join(' '),
        headers: StyleOMutationHeaders,
        params: IdParams,
        body: EmptyBody,
        response: { 200: Invoice.describe('The invoice: cancelled, or cancellation_requested'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY, present(200), (finalize) =>
        cancelInvoice(app.ctx, request.merchant, request.params.id, finalize),
      ),
  );

  app.post(
    '/v1/invoices/:id/simulate',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'simulateInvoiceRecipient',
        summary: 'Sandbox only: the public administration\'s answer to a delivered FPA12 invoice (404 in production)',
        description:
          'recipient_accepted (NE EC01) and deadline_passed (DT: 15 days without an answer) -> accepted; recipient_refused (NE EC02) -> stays delivered with fiscal.delivery_status refused and the refusal in fiscal.fiscal_errors. 409 invoice_invalid_state for an invoice that is not delivered, already answered, B2B (FPR12: accepted by itself 15 days after delivery) or German.',
        headers: StyleOMutationHeaders,
        params: IdParams,
        body: SimulateInvoiceBody,
        response: { 200: Invoice.describe('The invoice after the answer'), ...errorResponses(400, 403, 404, 409) },
      },
    },
    (request, reply) => {
      if (app.ctx.config.environment !== 'sandbox') throw notFound('route');
      return runIdempotentService(app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY, present(200), (finalize) =>
        simulateRecipient(app.ctx, request.merchant, request.params.id, request.body.event, finalize),
      );
    },
  );

  app.get(
    '/v1/invoices/:id/document',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'getInvoiceDocument',
        summary: 'The electronic document of a submitted invoice, byte for byte as submitted (Style O)',
        description: 'application/xml, or application/pkcs7-mime for a document signed with the organization\'s fiscal certificate (IT: CAdES-BES, <name>.xml.p7m, the XML inside); Content-Disposition names fiscal.jurisdiction_data.file_name. A draft has none: 409 invoice_invalid_state.',
        headers: StyleOHeaders,
        params: IdParams,
        response: { 200: ElectronicDocument, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { invoice, document, mediaType } = await invoiceDocument(app.ctx, request.merchant, request.params.id);
      return (reply as FastifyReply)
        .type(mediaType)
        .header('content-disposition', `attachment; filename="${invoice.documentFileName}"`)
        .send(document);
    },
  );

  app.get(
    '/v1/invoices/:id/pdf',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'getInvoicePdf',
        summary: 'A human-readable PDF of the invoice (Style O)',
        description:
          'A4, in the jurisdiction\'s language (IT Italian, DE German): parties, lines, VAT summary, totals, payment, references, and the electronic document\'s file name, authority id and chain hash. The electronic document stays the legally valid one. A draft\'s PDF is marked as not a fiscal document.',
        headers: StyleOHeaders,
        params: IdParams,
        response: { 200: PdfDocument, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const { invoice, pdf } = await invoicePdf(app.ctx, request.merchant, request.params.id);
      const name = (invoice.invoiceNumber ?? invoice.id).replace(/[^A-Za-z0-9-]/g, '_');
      return (reply as FastifyReply).type('application/pdf').header('content-disposition', `inline; filename="${name}.pdf"`).send(pdf);
    },
  );
};
