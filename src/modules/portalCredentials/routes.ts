import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FiscalPortalCredential as PortalCredentialRecord } from '../../db/generated/client.js';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses } from '../common/responses.js';
import { EmptyBody } from '../refunds/schemas.js';
import { OrganizationParams, STYLE_O_IDEMPOTENCY, StyleOHeaders, StyleOMutationHeaders } from '../styleO/schemas.js';
import { STYLE_O } from '../styleO/styleConstraint.js';
import { portalCredentialResult, presentPortalCredential } from './presenter.js';
import {
  CreatePortalCredentialBody,
  DeletedPortalCredential,
  PortalCredential,
  PortalCredentialList,
  PortalCredentialListQuery,
  PortalCredentialParams,
  UpdatePortalCredentialBody,
} from './schemas.js';
import {
  createPortalCredential,
  deletePortalCredential,
  getPortalCredential,
  listPortalCredentials,
  updatePortalCredential,
  validatePortalCredential,
} from './service.js';

/** Style O fiscal-portal credentials (contract 2.11, 4.3) under /v1/organizations/{organizationId}. */
export const portalCredentialRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Fiscal portal credentials'];
  const base = '/v1/organizations/:organizationId/fiscal-portal-credentials';
  const present = (credential: PortalCredentialRecord, status: number) =>
    portalCredentialResult(credential, status, app.ctx.secrets, app.ctx.clock());

  app.post(
    base,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'createFiscalPortalCredential',
        summary: 'Store credentials of a tax-authority portal (Style O)',
        description:
          'The secrets are sealed at rest and only ever returned masked. The credential starts `unvalidated`. 422 validation_error when the jurisdiction is not the portal\'s; 422 regime_validation_failed when a Fisconline or Entratel user_id is not a fiscal code; 409 fiscal_portal_credential_exists for a second Fisconline credential (an organization has one, which is also its ITA fiscal identity\'s fisconline_* fields).',
        headers: StyleOMutationHeaders,
        params: OrganizationParams,
        body: CreatePortalCredentialBody,
        response: { 201: PortalCredential.describe('The credential stored'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
        (credential: PortalCredentialRecord) => present(credential, 201),
        (finalize) => createPortalCredential(app.ctx, request.merchant, request.body, finalize),
      ),
  );

  app.get(
    base,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'listFiscalPortalCredentials',
        summary: "List an organization's portal credentials, newest first (Style O)",
        headers: StyleOHeaders,
        params: OrganizationParams,
        querystring: PortalCredentialListQuery,
        response: { 200: PortalCredentialList.describe('The credentials, masked'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const now = app.ctx.clock();
      const credentials = await listPortalCredentials(app.ctx, request.merchant, request.query.portal_type);
      return { object: 'list' as const, data: credentials.map((credential) => presentPortalCredential(credential, app.ctx.secrets, now)) };
    },
  );

  app.get(
    `${base}/:credentialId`,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'getFiscalPortalCredential',
        summary: 'Get a portal credential (Style O)',
        headers: StyleOHeaders,
        params: PortalCredentialParams,
        response: { 200: PortalCredential.describe('The credential, masked'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) =>
      presentPortalCredential(await getPortalCredential(app.ctx, request.merchant, request.params.credentialId), app.ctx.secrets, app.ctx.clock()),
  );

  app.patch(
    `${base}/:credentialId`,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'updateFiscalPortalCredential',
        summary: 'Update a portal credential (Style O)',
        description:
          'The credential fields sent replace the stored ones; any that changes sets state back to unvalidated, and a new password restarts its expiry. The Fisconline credential is also the ITA fiscal identity\'s fisconline_* fields: the merchant shows the change too.',
        headers: StyleOMutationHeaders,
        params: PortalCredentialParams,
        body: UpdatePortalCredentialBody,
        response: { 200: PortalCredential.describe('The credential as updated, masked'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
        (credential: PortalCredentialRecord) => present(credential, 200),
        (finalize) => updatePortalCredential(app.ctx, request.merchant, request.params.credentialId, request.body, finalize),
      ),
  );

  app.delete(
    `${base}/:credentialId`,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'deleteFiscalPortalCredential',
        summary: 'Delete a portal credential (Style O)',
        description: "409 fiscal_portal_credential_in_use for the Fisconline credential of an organization with an ITA fiscal identity (the identity needs it).",
        headers: StyleOHeaders,
        params: PortalCredentialParams,
        response: { 200: DeletedPortalCredential.describe('The credential was deleted'), ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      await deletePortalCredential(app.ctx, request.merchant, request.params.credentialId);
      return { id: request.params.credentialId, object: 'fiscal_portal_credential' as const, deleted: true as const };
    },
  );

  app.post(
    `${base}/:credentialId/validate`,
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'validateFiscalPortalCredential',
        summary: 'Validate a portal credential against its portal (Style O)',
        description:
          'Logs in to the portal: state becomes valid (with last_validated_at) or invalid (with validation_error). The sandbox asks a simulated portal, which rejects the password `wrong-password` and a credential missing what the portal needs. Production has no client of the live portals and answers 501 not_implemented.',
        headers: StyleOMutationHeaders,
        params: PortalCredentialParams,
        body: EmptyBody,
        response: { 200: PortalCredential.describe('The credential as validated, masked'), ...errorResponses(400, 403, 404, 409, 501) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
        (credential: PortalCredentialRecord) => present(credential, 200),
        (finalize) => validatePortalCredential(app.ctx, request.merchant, request.params.credentialId, finalize),
      ),
  );
};
