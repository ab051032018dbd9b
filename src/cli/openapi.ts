// npm run openapi: writes openapi/openapi.json from the app's routes.
// npm run openapi:check: exits 1 when the committed file differs from what the app serves.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';

const OUTPUT = 'openapi/openapi.json';

// Routes do not touch the database while the document is built: an empty in-memory one suffices.
const database = await openDatabase({ pglite: new PGlite() });
const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), database, secretsKey: Buffer.alloc(32) });
await app.ready();
const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
await app.close();
await database.close();

if (process.argv.includes('--check')) {
  const committed = existsSync(OUTPUT) ? readFileSync(OUTPUT, 'utf8') : '';
  if (committed !== document) {
    console.error(`${OUTPUT} differs from the document the app serves; run npm run openapi and commit it`);
    process.exitCode = 1;
  } else {
    console.log(`${OUTPUT} matches the served document`);
  }
} else {
  mkdirSync('openapi', { recursive: true });
  writeFileSync(OUTPUT, document);
  console.log(`wrote ${OUTPUT}`);
}
