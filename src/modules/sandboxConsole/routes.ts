import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../../domain/errors.js';
import { CONSOLE_CSS, CONSOLE_JS, CONSOLE_PAGE } from './assets.js';

/**
 * Only this origin's script, style and API: the page's script and style are files of their own,
 * so nothing inline runs; no form posts anywhere (the key never travels in a URL) and no site frames it.
 */
const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page handles an API key: no cache keeps it, no referrer leaves it, no frame hosts it. */
const CONSOLE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
};

const CONSOLE_FILES = [
  { url: '/sandbox', contentType: 'text/html; charset=utf-8', body: CONSOLE_PAGE },
  { url: '/sandbox/console.js', contentType: 'text/javascript; charset=utf-8', body: CONSOLE_JS },
  { url: '/sandbox/console.css', contentType: 'text/css; charset=utf-8', body: CONSOLE_CSS },
];

/**
 * The sandbox console (GET /sandbox): a page that shows an integrator, through the public API and
 * their own sandbox key, their merchants, registers, operations, exports and webhooks, and sets the
 * fault simulations. Loading it needs no key; it does not exist in production. Not part of the API,
 * so not in the OpenAPI document.
 */
export const sandboxConsoleRoutes: FastifyPluginAsync = async (app) => {
  for (const file of CONSOLE_FILES) {
    app.get(file.url, { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) => {
      if (app.ctx.config.environment !== 'sandbox') throw notFound('route');
      return reply.type(file.contentType).headers(CONSOLE_HEADERS).send(file.body);
    });
  }
};
