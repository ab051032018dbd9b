// Dependencies point one way (DESIGN.md, "Shape"): app -> modules -> fiscal, exports, receipts, outbox
// -> domain, db, lib. Reads every import of every source file and checks it against the one table
// (eslint/layers.js), which the lint rule layers/import-direction holds against the code as well.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importViolation, LAYERS, layerOf, MAY_NOT_IMPORT } from '../../eslint/layers.js';

interface SourceFile {
  /** Relative to the repository, e.g. src/http/auth.ts. */
  path: string;
  text: string;
}

/** Every module specifier of a file: imports, `export ... from`, dynamic and type-position `import()`. */
function specifiersOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** Every import the table forbids, as `file -> specifier (why)`. */
function findViolations(files: SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    if (!layerOf(file.path)) {
      violations.push(`${file.path} (${importViolation(file.path, '.')})`);
      continue;
    }
    for (const specifier of specifiersOf(file.text)) {
      const why = importViolation(file.path, specifier);
      if (why) violations.push(`${file.path} -> ${specifier} (${why})`);
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

  it('each folder of src/ says in its README.md what it owns and what it may import', () => {
    const folders = readdirSync(REPOSITORY + 'src', { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(folders).toContain('fiscal');
    for (const folder of folders) {
      const readme = readFileSync(`${REPOSITORY}src/${folder}/README.md`, 'utf8');
      expect(readme, folder).toMatch(new RegExp(`^# ${folder}/`));
      expect(readme, folder).toContain('eslint/layers.js');
    }
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

  it('the lint rule refuses an upward import (the fixture: a fiscal file that imports modules, app, http, context, cli)', async () => {
    const eslint = new ESLint({ cwd: REPOSITORY });
    const fixture = readFileSync(fileURLToPath(new URL('./fixtures/upwardImports.ts.txt', import.meta.url)), 'utf8');
    const [result] = await eslint.lintText(fixture, { filePath: `${REPOSITORY}src/fiscal/rksv/upwardImports.ts` });
    const refused = result.messages.filter((message) => message.ruleId === 'layers/import-direction').map((message) => message.message);
    expect(refused).toEqual([
      '../../modules/common/transactions.js: fiscal may not import modules',
      '../../app.js: fiscal may not import app',
      '../../http/errorHandler.js: fiscal may not import http',
      '../../context.js: fiscal may not import context',
      '../../cli/admin.js: fiscal may not import cli',
    ]);
    // The same text where it belongs (a module may import all of these but the entry points) passes all but the cli import.
    const [above] = await eslint.lintText(fixture.replaceAll('../../', '../../../src/'), { filePath: `${REPOSITORY}src/modules/registers/upwardImports.ts` });
    expect(above.messages.filter((message) => message.ruleId === 'layers/import-direction').map((message) => message.message)).toEqual([
      '../../../src/app.js: modules may not import app',
      '../../../src/cli/admin.js: modules may not import cli',
    ]);
  });
});
