// npm run worker: builds export jobs outside the server (run the server with EXPORT_WORKER=off).
// On PostgreSQL several workers may run at once; the embedded database serves one process at a
// time, so there the worker refuses to start while the server holds DATA_DIR.
// SIGTERM finishes the job in hand, then exits.
import pino from 'pino';
import { openMigratedDatabase } from '../bootstrap.js';
import { loadConfig } from '../config.js';
import { createExportWorker } from '../exports/createExportWorker.js';
import { logDestination } from '../lib/logDestination.js';
import { openDatabaseOrExit } from './openDatabaseOrExit.js';

const config = loadConfig();
const log = pino({ level: config.logLevel }, await logDestination());
const database = await openDatabaseOrExit(() => openMigratedDatabase(config));
const worker = createExportWorker(database.prisma, config, log);
worker.start();
log.info({ worker_id: worker.id }, 'export worker started');

const shutdown = async () => {
  await worker.stop();
  await database.close();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
