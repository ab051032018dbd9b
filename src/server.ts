import cluster from 'node:cluster';
import pino, { type DestinationStream } from 'pino';
import { buildApp } from './app.js';
import { openMigratedDatabase, openServingDatabase, secretsKeyFor } from './bootstrap.js';
import { loadConfig, type Config } from './config.js';
import type { Database } from './db/database.js';
import { answerCounterRequests, PrimaryProcessCounter } from './http/primaryProcessCounter.js';
import type { WindowCounter } from './http/rateLimit.js';
import { environmentOfService } from './lib/apiKeys.js';
import { logDestination } from './lib/logDestination.js';
import { pruneExpiredEvents } from './outbox/eventRetention.js';
import { SecretBox } from './lib/secretBox.js';
import { seedDemoTenant } from './modules/admin/demoTenant.js';
import { moveLegacyFisconlineFields } from './modules/portalCredentials/identityMigration.js';
import { superviseServerProcesses } from './serverProcesses.js';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** What runs once per instance before it serves, on its migrated database: the data migrations and the sandbox's demo tenant. */
async function prepare(config: Config, database: Database, secretsKey: Buffer, log: pino.Logger): Promise<void> {
  await moveLegacyFisconlineFields(database.prisma, new SecretBox(secretsKey), log);
  if (config.environment === 'sandbox' && config.seedDemoTenant) {
    const apiKey = await seedDemoTenant(database.prisma, environmentOfService(config.environment));
    if (apiKey) {
      console.log(
        [
          '',
          'A demo tenant was created in this empty sandbox. Its API key (DEU, shown only this once):',
          `  ${apiKey}`,
          `Try: curl -H "Authorization: Bearer ${apiKey}" http://localhost:${config.port}/v1/merchants`,
          '',
        ].join('\n'),
      );
    }
  }
}

/** Serves requests in this process until SIGTERM or SIGINT, then drains them and exits. */
async function serve(config: Config, database: Database, secretsKey: Buffer, logStream: DestinationStream, rateLimitCounter?: WindowCounter): Promise<void> {
  // The test suite checks every response against its schema; the server writes them as presented.
  const app = await buildApp({ config, database, secretsKey, logStream, rateLimitCounter, checkResponses: false });

  // What is kept for a while only: idempotency keys, and events with their deliveries.
  const sweep = setInterval(() => {
    app.ctx.idempotency.sweep().catch((error) => app.log.warn({ err: error }, 'idempotency sweep failed'));
    pruneExpiredEvents(app.ctx.sql, config.eventRetentionDays, app.ctx.clock()).catch((error) => app.log.warn({ err: error }, 'event sweep failed'));
  }, SWEEP_INTERVAL_MS);
  sweep.unref();

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'draining in-flight requests');
    clearInterval(sweep);
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    // A keep-alive connection whose request finishes during the drain would hold
    // close() open until its keep-alive timeout; close each one as it goes idle.
    const reapIdle = setInterval(() => app.server.closeIdleConnections(), 50);
    reapIdle.unref();
    // Fastify stops accepting connections, finishes in-flight requests, then runs onClose hooks.
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}

async function main(): Promise<void> {
  const config = loadConfig();
  const secretsKey = secretsKeyFor(config);
  if (cluster.isWorker) {
    await serve(config, await openServingDatabase(config), secretsKey, await logDestination(), new PrimaryProcessCounter(process));
    return;
  }
  const logStream = await logDestination();
  const log = pino({ level: config.logLevel }, logStream);
  const database = await openMigratedDatabase(config);
  await prepare(config, database, secretsKey, log);
  if (config.serverProcesses === 1) {
    await serve(config, database, secretsKey, logStream);
    return;
  }
  // Each server process opens its own share of the pool.
  await database.close();
  superviseServerProcesses({ count: config.serverProcesses, log, onMessage: answerCounterRequests(config.rateLimitPerSecond) });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
