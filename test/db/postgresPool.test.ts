// The service's PostgreSQL pool: a connection that fails just as it is handed out, before its
// borrower listens for errors (a backend terminated as it became ready sends its FATAL in the
// packet of ReadyForQuery), does not crash the process, and the pool discards it.
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresPool } from '../../src/db/database.js';

const usesPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!usesPostgres)('postgresPool (PostgreSQL)', () => {
  let pool: pg.Pool | undefined;
  afterEach(async () => {
    await pool?.end();
    pool = undefined;
  });

  it('an error on a connection before its borrower listens is no uncaught exception, and the connection is discarded', async () => {
    pool = postgresPool(process.env.DATABASE_URL!, 2);
    const terminated = new Error('terminating connection due to administrator command');
    const handedOut = await new Promise<pg.PoolClient>((resolve, reject) => {
      // The callback runs where pg-pool hands the connection out: what pg emits there, nobody else hears yet.
      pool!.connect((error, client, release) => {
        if (error || !client) return reject(error);
        try {
          client.emit('error', terminated);
          resolve(client);
        } catch (uncaught) {
          reject(uncaught);
        } finally {
          release(terminated);
        }
      });
    });
    expect(pool.totalCount).toBe(0);
    const [{ answer }] = (await pool.query<{ answer: number }>('SELECT 42 AS answer')).rows;
    expect(answer).toBe(42);
    expect(handedOut).toBeDefined();
  });
});
