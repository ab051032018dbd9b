import { buildApp } from './app.js';
import { openMigratedDatabase, secretsKeyFor } from './bootstrap.js';
import { loadConfig } from './config.js';
import { environmentOfService } from './lib/apiKeys.js';
import { logDestination } from './lib/logDestination.js';
import { seedDemoTenant } from './modules/admin/demoTenant.js';
import { moveLegacyFisconlineFields } from './modules/portalCredentials/identityMigration.js';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

async function main(): Promise<void> {
  const config = loadConfig();
  const secretsKey = secretsKeyFor(config);
  const database = await openMigratedDatabase(config);
  const app = await buildApp({ config, database, secretsKey, logStream: await logDestination() });
  await moveLegacyFisconlineFields(database.prisma, app.ctx.secrets, app.log);

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

  const sweep = setInterval(() => {
    app.ctx.idempotency.sweep().catch((error) => app.log.warn({ err: error }, 'idempotency sweep failed'));
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

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
