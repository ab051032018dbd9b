// Compares prisma/schema.prisma with the migrations folder through Prisma's
// WebAssembly schema engine (the native one cannot be downloaded here).
//   npm run db:diff -- --check          exit 1 when the schema has changes no migration holds
//   npm run db:diff -- --create <name>  write those changes as a new migration
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { MIGRATIONS_DIR, SCHEMA_PATH, migrationList } from '../db/migrations.js';
import { openSchemaEngine } from '../db/schemaEngine.js';

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const createIndex = args.indexOf('--create');
  const name = createIndex >= 0 ? args[createIndex + 1] : undefined;
  if (!args.includes('--check') && !name) {
    console.error('usage: db:diff -- --check | --create <name>');
    return 2;
  }
  const schema = readFileSync(SCHEMA_PATH, 'utf8');
  // The engine replays the migrations on a shadow database: an in-memory PGlite.
  const pglite = new PGlite();
  try {
    const engine = await openSchemaEngine(new PrismaPGlite(pglite), schema);
    const result = await engine.diff({
      from: { tag: 'migrations', ...migrationList() },
      to: { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: schema }] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    const script = (result.stdout ?? '').trim();
    const empty = script === '' || script === '-- This is an empty migration.';
    if (name) {
      if (empty) {
        console.log('schema.prisma matches the migrations; nothing to create');
        return 0;
      }
      const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
      const dir = join(MIGRATIONS_DIR, `${stamp}_${name.replace(/[^a-z0-9_]/gi, '_')}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'migration.sql'), `${script}\n`);
      console.log(`created ${dir}/migration.sql`);
      return 0;
    }
    if (!empty) {
      console.error('schema.prisma has changes that no migration holds:\n' + script);
      return 1;
    }
    console.log('schema.prisma matches the migrations');
    return 0;
  } finally {
    await pglite.close();
  }
}

process.exitCode = await main();
