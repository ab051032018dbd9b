// npm run db:migrate: applies pending migrations to DATABASE_URL, or to the embedded database in DATA_DIR
// (refused while another process, such as the server, holds it).
import { openDatabase } from '../db/database.js';
import { loadConfig } from '../config.js';
import { openDatabaseOrExit } from './openDatabaseOrExit.js';

const config = loadConfig();
const database = await openDatabaseOrExit(() => openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
try {
  const outcome = await database.migrate();
  console.log(JSON.stringify({ database: database.kind, ...outcome }));
} finally {
  await database.close();
}
