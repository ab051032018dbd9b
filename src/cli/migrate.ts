// npm run db:migrate: applies pending migrations to DATABASE_URL, or to the embedded database in DATA_DIR.
import { openDatabase } from '../db/database.js';
import { loadConfig } from '../config.js';

const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
try {
  const outcome = await database.migrate();
  console.log(JSON.stringify({ database: database.kind, ...outcome }));
} finally {
  await database.close();
}
