import type { Database } from '../db/database.js';

/**
 * Opens the database for a command-line process; when it cannot (the embedded database is
 * held by another process, PostgreSQL is unreachable), prints why, without a stack, and exits 1.
 */
export async function openDatabaseOrExit(open: () => Promise<Database>): Promise<Database> {
  try {
    return await open();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
