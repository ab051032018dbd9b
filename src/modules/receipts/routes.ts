import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { renderReceiptHtml } from '../../receipts/renderReceiptHtml.js';
import { renderReceiptPdf } from '../../receipts/renderReceiptPdf.js';
import { errorResponses, StyleMHeaders } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { presentReceipt, snapshotOf } from './presenter.js';
import { Receipt } from './schemas.js';
import { getReceipt, getReceiptByToken } from './service.js';
import { toReceiptDocument } from './snapshot.js';
import type { Receipt as ReceiptRecord } from '../../db/generated/client.js';

/** PDF and HTML bodies bypass the JSON serializer; the route's typed reply only knows its JSON shapes. */
function sendDocument(reply: FastifyReply, contentType: string, body: Buffer | string, headers: Record<string, string> = {}) {
  return reply.type(contentType).headers(headers).send(body);
}

const TokenParams = z.strictObject({ token: z.string().min(1).max(64) });

/**
 * The customer's links carry their credential in the URL: no shared cache keeps them, no
 * referrer leaks them, no search engine lists them (nosniff is on every response, app.ts).
 */
const CUSTOMER_DOCUMENT_HEADERS = {
  'cache-control': 'private, max-age=300',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
};

/**
 * The hosted page is self-contained (renderReceiptHtml): one inline <style>, the QR code as
 * inline SVG, no script, image, font or form. Anything else is refused, and no site may frame it.
 */
const HOSTED_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Documents, not JSON: Fastify sends these bodies as they are, so the schemas only describe them.
const PdfDocument = { description: 'The receipt as PDF', content: { 'application/pdf': { schema: z.string().meta({ format: 'binary' }) } } };
const HtmlDocument = { description: 'The hosted receipt page', content: { 'text/html': { schema: z.string() } } };
const documentOf = (receipt: ReceiptRecord) => toReceiptDocument(snapshotOf(receipt));

/** Style M receipts (2.4) and the customer's links: a PDF and a hosted page behind an unguessable token. */
export const receiptRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Receipts'];

  app.get(
    '/v1/receipts/:id',
    {
      config: { merchantScoped: true },
      schema: {
        tags,
        operationId: 'getReceipt',
        summary: 'Get a receipt',
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: Receipt.describe('The receipt of a completed operation, with its links'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => presentReceipt(await getReceipt(app.ctx, request.merchant, request.params.id), app.ctx.publicBaseUrl),
  );

  app.get(
    '/v1/receipts/:id/pdf',
    {
      config: { merchantScoped: true },
      schema: {
        tags,
        operationId: 'getReceiptPdf',
        summary: 'The receipt as PDF (application/pdf)',
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: PdfDocument, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const receipt = await getReceipt(app.ctx, request.merchant, request.params.id);
      return sendDocument(reply as FastifyReply, 'application/pdf', await renderReceiptPdf(documentOf(receipt)));
    },
  );

  app.get(
    '/receipts/:token',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'getHostedReceipt',
        summary: 'Hosted receipt page for the customer (text/html, no API key)',
        security: [],
        params: TokenParams,
        response: { 200: HtmlDocument, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const receipt = await getReceiptByToken(app.ctx, request.params.token);
      return sendDocument(reply as FastifyReply, 'text/html; charset=utf-8', await renderReceiptHtml(documentOf(receipt)), {
        ...CUSTOMER_DOCUMENT_HEADERS,
        'content-security-policy': HOSTED_PAGE_CSP,
      });
    },
  );

  app.get(
    '/receipts/:token/pdf',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'getHostedReceiptPdf',
        summary: 'The receipt as PDF for the customer (application/pdf, no API key)',
        security: [],
        params: TokenParams,
        response: { 200: PdfDocument, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const receipt = await getReceiptByToken(app.ctx, request.params.token);
      return sendDocument(reply as FastifyReply, 'application/pdf', await renderReceiptPdf(documentOf(receipt)), {
        ...CUSTOMER_DOCUMENT_HEADERS,
        'content-disposition': `inline; filename="receipt-${receipt.id}.pdf"`,
      });
    },
  );
};
