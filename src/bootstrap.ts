import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { loadSecretsKey } from './lib/secretBox.js';

/** Opens the configured database (PostgreSQL or embedded PGlite) and brings its schema up to date. */
export async function openMigratedDatabase(config: Config): Promise<Database> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
  });
  try {
    await database.migrate();
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** A server process's database, once its primary brought the schema up to date: its share of the instance's connections. */
export function openServingDatabase(config: Config): Promise<Database> {
  return openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: Math.ceil(config.databasePoolSize / config.serverProcesses),
  });
}

export const secretsKeyFor = (config: Config): Buffer =>
  loadSecretsKey({ secretsKey: config.secretsKey, dataDir: config.dataDir, environment: config.environment });
