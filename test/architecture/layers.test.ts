// Dependencies point one way (DESIGN.md, "Shape"): app -> modules -> fiscal, exports, receipts, outbox
// -> domain, db, lib. Reads every import of every source file and checks it against one table.
import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Bottom to top. A file's layer is its folder directly under src/, or, for a file directly in src/, its name. */
const LAYERS = ['domain', 'lib', 'db', 'config', 'receipts', 'exports', 'einvoicing', 'fiscal', 'outbox', 'http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'] as const;
type Layer = (typeof LAYERS)[number];

/** Layer -> the layers it may not import. */
const MAY_NOT_IMPORT: Record<Layer, readonly Layer[]> = {
  domain:    ['lib', 'db', 'config', 'receipts', 'exports', 'einvoicing', 'fiscal', 'outbox', 'http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // pure rules
  lib:       ['receipts', 'exports', 'einvoicing', 'fiscal', 'outbox', 'http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // ids, keys, signed links
  db:        ['receipts', 'exports', 'einvoicing', 'fiscal', 'outbox', 'http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // database, stored rows and records
  config:    ['receipts', 'exports', 'einvoicing', 'fiscal', 'outbox', 'http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // environment -> typed config
  receipts:  ['http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // receipt rendering
  exports:   ['http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // export builders and their job worker
  einvoicing: ['http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // e-invoice formats, one folder per jurisdiction
  fiscal:    ['http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // signing devices, one folder per regime
  outbox:    ['http', 'context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // events and the webhook delivery worker
  http:      ['context', 'modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // cross-cutting plugins, the one error mapping
  context:   ['modules', 'bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // AppContext: what services get, built by app.ts
  modules:   ['bootstrap', 'serverProcesses', 'app', 'cli', 'server'], // per resource: routes, schemas, services, presenters
  bootstrap: ['serverProcesses', 'app', 'cli', 'server'], // opens the database for the entry points
  serverProcesses: ['modules', 'bootstrap', 'app', 'cli', 'server'], // the primary process: forks and supervises the server processes
  app:       ['bootstrap', 'serverProcesses', 'cli', 'server'], // buildApp: plugins and routes
  cli:       ['serverProcesses', 'server'], // entry points: the command lines
  server:    ['cli'], // entry point: config -> prepare the database -> serve here, or fork server processes that do
};

/** Packages the domain may not import: "Domain code has no Fastify or Prisma imports" (DESIGN.md). */
const PACKAGES_NOT_IN_DOMAIN = /^(fastify|fastify-.*|@fastify\/.*|prisma|@prisma\/.*)$/;

interface SourceFile {
  /** Relative to the repository, e.g. src/http/auth.ts. */
  path: string;
  text: string;
}

function layerOf(path: string): Layer | undefined {
  const [root, top, ...rest] = path.split('/');
  if (root !== 'src' || !top) return undefined;
  const name = rest.length ? top : top.replace(/\.(js|ts)$/, '');
  return LAYERS.find((layer) => layer === name);
}

/** Every module specifier of a file: imports, `export ... from`, dynamic and type-position `import()`. */
function specifiersOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** Every import the table forbids, as `file -> specifier (why)`. */
function findViolations(files: SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const layer = layerOf(file.path);
    if (!layer) {
      violations.push(`${file.path} (in no layer: add its folder to LAYERS and MAY_NOT_IMPORT)`);
      continue;
    }
    for (const specifier of specifiersOf(file.text)) {
      if (!specifier.startsWith('.')) {
        if (layer === 'domain' && PACKAGES_NOT_IN_DOMAIN.test(specifier)) {
          violations.push(`${file.path} -> ${specifier} (domain may not import ${specifier})`);
        }
        continue;
      }
      const target = posix.normalize(posix.join(posix.dirname(file.path), specifier));
      const targetLayer = layerOf(target);
      if (!targetLayer) violations.push(`${file.path} -> ${specifier} (outside every layer)`);
      else if (MAY_NOT_IMPORT[layer].includes(targetLayer)) {
        violations.push(`${file.path} -> ${specifier} (${layer} may not import ${targetLayer})`);
      }
    }
  }
  return violations;
}

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

function sourceFiles(directory = 'src'): SourceFile[] {
  return readdirSync(REPOSITORY + directory, { withFileTypes: true }).flatMap((entry) => {
    const path = `${directory}/${entry.name}`;
    if (entry.isDirectory()) return path === 'src/db/generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [{ path, text: readFileSync(REPOSITORY + path, 'utf8') }] : [];
  });
}

describe('layers', () => {
  it('every import of src/ follows the table', () => {
    const files = sourceFiles();
    expect(files.map((file) => file.path)).toContain('src/app.ts');
    const violations = findViolations(files);
    expect(violations, `imports against the layer table:\n${violations.join('\n')}`).toEqual([]);
  });

  it('no layer is forbidden its own files', () => {
    for (const layer of LAYERS) expect(MAY_NOT_IMPORT[layer]).not.toContain(layer);
  });

  it('the checker reports every kind of import that breaks the table', () => {
    const violations = findViolations([
      {
        path: 'src/domain/money.ts',
        text: [
          "import { Decimal } from 'decimal.js';",
          "import { formatAmount } from './operations/taxAmount.js';",
          "import { notFound } from '../http/errors.js';",
          "import type { FastifyInstance } from 'fastify';",
        ].join('\n'),
      },
      {
        path: 'src/fiscal/kassensichv/softwareTse.ts',
        text: [
          "import type { Tx } from '../../db/transaction.js';",
          "import type { Finalize } from '../../modules/common/transactions.js';",
          "export { buildApp } from '../../app.js';",
          "const context = await import('../../context.js');",
          "// import { ignored } from '../../http/auth.js';",
        ].join('\n'),
      },
      { path: 'src/http/auth.ts', text: "import { merchantFromRow } from '../modules/merchants/merchantRows.js';" },
      { path: 'src/lib/ids.ts', text: "import type { KassenSichVDevice } from '../fiscal/kassensichv/device.js';" },
      { path: 'src/modules/admin/routes.ts', text: "import { main } from '../../cli/admin.js';" },
      { path: 'src/scheduler/worker.ts', text: "import { newId } from '../lib/ids.js';" },
      { path: 'src/db/sql.ts', text: "import data from '../../package.json';" },
    ]);
    expect(violations).toEqual([
      'src/domain/money.ts -> ../http/errors.js (domain may not import http)',
      'src/domain/money.ts -> fastify (domain may not import fastify)',
      'src/fiscal/kassensichv/softwareTse.ts -> ../../modules/common/transactions.js (fiscal may not import modules)',
      'src/fiscal/kassensichv/softwareTse.ts -> ../../app.js (fiscal may not import app)',
      'src/fiscal/kassensichv/softwareTse.ts -> ../../context.js (fiscal may not import context)',
      'src/http/auth.ts -> ../modules/merchants/merchantRows.js (http may not import modules)',
      'src/lib/ids.ts -> ../fiscal/kassensichv/device.js (lib may not import fiscal)',
      'src/modules/admin/routes.ts -> ../../cli/admin.js (modules may not import cli)',
      'src/scheduler/worker.ts (in no layer: add its folder to LAYERS and MAY_NOT_IMPORT)',
      'src/db/sql.ts -> ../../package.json (outside every layer)',
    ]);
  });
});
