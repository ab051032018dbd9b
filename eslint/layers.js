// The direction dependencies point in (DESIGN.md, "Shape"): app -> modules -> fiscal, exports,
// receipts, outbox -> domain, db, lib. One table, read by the lint rule below (eslint.config.js)
// and by test/architecture/layers.test.ts.
import { posix, relative, sep } from 'node:path';
import { fileURLToPath, URL } from 'node:url';

/** Bottom to top. A file's layer is its folder directly under src/, or, for a file directly in src/, its name. */
export const LAYERS = ['domain', 'lib', 'db', 'config', 'receipts', 'exports', 'einvoicing', 'fiscal', 'outbox', 'http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'];

const ABOVE_FISCAL = ['http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'];

/** Layer -> the layers it may not import. */
export const MAY_NOT_IMPORT = {
  domain: ['lib', 'db', 'config', 'receipts', 'exports', 'einvoicing', 'fiscal', 'outbox', ...ABOVE_FISCAL], // pure rules
  lib: ['receipts', 'exports', 'einvoicing', 'fiscal', 'outbox', ...ABOVE_FISCAL], // ids, keys, signed links
  db: ['receipts', 'exports', 'einvoicing', 'fiscal', 'outbox', ...ABOVE_FISCAL], // database, stored rows and records
  config: ['receipts', 'exports', 'einvoicing', 'fiscal', 'outbox', ...ABOVE_FISCAL], // environment -> typed config
  receipts: ABOVE_FISCAL, // receipt rendering
  exports: ABOVE_FISCAL, // export builders and their job worker
  einvoicing: ABOVE_FISCAL, // e-invoice formats, one folder per jurisdiction
  fiscal: ABOVE_FISCAL, // signing devices and authority clients, one folder per regime
  outbox: ABOVE_FISCAL, // events and the webhook delivery worker
  http: ['context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // cross-cutting plugins, the one error mapping
  context: ['modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // AppContext: what services get, built by app.ts
  modules: ['bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // per resource: routes, schemas, services, presenters
  bootstrap: ['serverProcesses', 'app', 'cli', 'server'], // opens the database for the entry points
  serverProcesses: ['modules', 'bootstrap', 'app', 'cli', 'server'], // the primary process: forks and supervises the server processes
  app: ['bootstrap', 'serverProcesses', 'cli', 'server'], // buildApp: plugins and routes
  cli: ['serverProcesses', 'server'], // entry points: the command lines
  server: ['cli'], // entry point: config -> prepare the database -> serve here, or fork server processes that do
};

/** Packages the domain may not import: "Domain code has no Fastify or Prisma imports" (DESIGN.md). */
const PACKAGES_NOT_IN_DOMAIN = /^(fastify|fastify-.*|@fastify\/.*|prisma|@prisma\/.*)$/;

/** The layer of a repository path (src/http/auth.ts -> http); undefined outside src/ or in no layer. */
export function layerOf(path) {
  const [root, top, ...rest] = path.split('/');
  if (root !== 'src' || !top) return undefined;
  const name = rest.length ? top : top.replace(/\.(js|ts)$/, '');
  return LAYERS.find((layer) => layer === name);
}

/** Why `specifier`, imported by the repository path `path`, breaks the table; null when it does not. */
export function importViolation(path, specifier) {
  const layer = layerOf(path);
  if (!layer) return 'in no layer: add its folder to LAYERS and MAY_NOT_IMPORT';
  if (!specifier.startsWith('.')) return layer === 'domain' && PACKAGES_NOT_IN_DOMAIN.test(specifier) ? `domain may not import ${specifier}` : null;
  const targetLayer = layerOf(posix.normalize(posix.join(posix.dirname(path), specifier)));
  if (!targetLayer) return 'outside every layer';
  return MAY_NOT_IMPORT[layer].includes(targetLayer) ? `${layer} may not import ${targetLayer}` : null;
}

const REPOSITORY = fileURLToPath(new URL('..', import.meta.url));

/** The string literal a module specifier node holds, if it is one. */
const literalOf = (node) => (node && node.type === 'Literal' && typeof node.value === 'string' ? node : null);

/** ESLint rule: every import of a file under src/ follows the table. */
const importDirection = {
  meta: { type: 'problem', docs: { description: 'imports point down the layer table of eslint/layers.js' }, schema: [], messages: { upward: '{{specifier}}: {{why}}' } },
  create(context) {
    const path = relative(REPOSITORY, context.filename).split(sep).join('/');
    if (!path.startsWith('src/') || path.startsWith('src/db/generated/')) return {};
    const check = (source) => {
      const literal = literalOf(source);
      if (!literal) return;
      const why = importViolation(path, literal.value);
      if (why) context.report({ node: literal, messageId: 'upward', data: { specifier: literal.value, why } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      // typescript-eslint 8 names the specifier `source`; older versions held it in `argument.literal`.
      TSImportType: (node) => check(node.source ?? node.argument?.literal),
    };
  },
};

export const layersPlugin = { rules: { 'import-direction': importDirection } };
