import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FiscalCertificate as FiscalCertificateRecord } from '../../db/generated/client.js';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses } from '../common/responses.js';
import { EmptyBody } from '../refunds/schemas.js';
import { OrganizationParams, STYLE_O_IDEMPOTENCY, StyleOHeaders, StyleOMutationHeaders } from '../styleO/schemas.js';
import { STYLE_O } from '../styleO/styleConstraint.js';
import { fiscalCertificateResult, presentFiscalCertificate } from './presenter.js';
import { FiscalCertificate, FiscalCertificateList, FiscalCertificateParams, UploadFiscalCertificateBody } from './schemas.js';
import { getFiscalCertificate, listFiscalCertificates, revokeFiscalCertificate, uploadFiscalCertificate } from './service.js';

/** Style O fiscal certificates (contract 2.12, 4.3) under /v1/organizations/{organizationId}. */
export const fiscalCertificateRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Fiscal certificates'];
  const base = '/v1/organizations/:organizationId/fiscal-certificates';

  app.post(
    base,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'uploadFiscalCertificate',
        summary: 'Upload a fiscal certificate (Style O)',
        description:
          'Subject, issuer, serial number, validity and fingerprint are read from the certificate. 400 invalid_request when `certificate` is not one X.509 certificate or `private_key` is not an unencrypted PEM key; 422 validation_error when the key does not match the certificate; 409 fiscal_certificate_exists when the organization already has it. The private key is sealed at rest and never returned.',
        headers: StyleOMutationHeaders,
        params: OrganizationParams,
        body: UploadFiscalCertificateBody,
        response: { 201: FiscalCertificate.describe('The certificate uploaded'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
        (certificate: FiscalCertificateRecord) => fiscalCertificateResult(certificate, 201, app.ctx.clock()),
        (finalize) => uploadFiscalCertificate(app.ctx, request.merchant, request.body, finalize),
      ),
  );

  app.get(
    base,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'listFiscalCertificates',
        summary: "List an organization's fiscal certificates, newest first (Style O)",
        headers: StyleOHeaders,
        params: OrganizationParams,
        response: { 200: FiscalCertificateList.describe('The certificates'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const now = app.ctx.clock();
      const certificates = await listFiscalCertificates(app.ctx, request.merchant);
      return { object: 'list' as const, data: certificates.map((certificate) => presentFiscalCertificate(certificate, now)) };
    },
  );

  app.get(
    `${base}/:certificateId`,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'getFiscalCertificate',
        summary: 'Get a fiscal certificate (Style O)',
        headers: StyleOHeaders,
        params: FiscalCertificateParams,
        response: { 200: FiscalCertificate.describe('The certificate'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) =>
      presentFiscalCertificate(await getFiscalCertificate(app.ctx, request.merchant, request.params.certificateId), app.ctx.clock()),
  );

  app.post(
    `${base}/:certificateId/revoke`,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'revokeFiscalCertificate',
        summary: 'Revoke a fiscal certificate (Style O)',
        description: 'The certificate stops signing at once. 409 fiscal_certificate_already_revoked when it is already revoked.',
        headers: StyleOMutationHeaders,
        params: FiscalCertificateParams,
        body: EmptyBody,
        response: { 200: FiscalCertificate.describe('The certificate, revoked'), ...errorResponses(400, 403, 404, 409) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
        (certificate: FiscalCertificateRecord) => fiscalCertificateResult(certificate, 200, app.ctx.clock()),
        (finalize) => revokeFiscalCertificate(app.ctx, request.merchant, request.params.certificateId, finalize),
      ),
  );
};
