import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { MIN_EVENT_RETENTION_DAYS } from './domain/webhookDeliveryWindow.js';

const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** The address ranges proxy-addr names (Fastify's trustProxy understands them). */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, an address/prefix (CIDR) or a named range of trusted proxies. */
function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (!version || rest.length) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
}

/**
 * Which proxies in front of the service to believe about the client's address
 * (X-Forwarded-For): a number of hops, or the proxies' addresses. "Every proxy" is not
 * offered: any client could then name its own address and escape its rate limit.
 */
const trustProxySetting = z
  .string()
  .transform((value, context): number | string[] => {
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      if (hops >= 1 && hops <= 10) return hops;
    } else {
      const entries = value.split(',').map((entry) => entry.trim());
      if (entries.every(isProxyAddress)) return entries;
    }
    context.addIssue({
      code: 'custom',
      message: 'must be a number of proxy hops (1 to 10) or a comma-separated list of proxy addresses, CIDR ranges or loopback, linklocal, uniquelocal',
    });
    return z.NEVER;
  });

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  SERVICE_ENV: z.enum(['sandbox', 'production']).default('sandbox'),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(40),
  SERVER_PROCESSES: z.coerce.number().int().min(1).max(64).optional(),
  DATA_DIR: z.string().default('./data'),
  PUBLIC_BASE_URL: z.string().url().optional(),
  PRODUCTION_BASE_URL: z.string().url().optional(),
  SANDBOX_BASE_URL: z.string().url().optional(),
  ADMIN_TOKEN: z.string().min(16).optional(),
  REDIS_URL: z.string().url().optional(),
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(500),
  TRUST_PROXY: trustProxySetting.optional(),
  SECRETS_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)').optional(),
  IDEMPOTENCY_RETENTION_HOURS: z.coerce.number().min(24).default(24),
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(MIN_EVENT_RETENTION_DAYS).default(30),
  DEVICE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SEED_DEMO_TENANT: booleanFlag.default(true),
  EXPORT_WORKER: z.enum(['inline', 'off']).default('inline'),
  EXPORT_URL_TTL_SECONDS: z.coerce.number().int().min(30).max(7 * 24 * 3600).default(900),
  EXPORT_POLL_MS: z.coerce.number().int().min(50).default(1000),
  EXPORT_LEASE_MS: z.coerce.number().int().min(1000).default(30_000),
  RT_TRANSMISSION_RETRY_MS: z.coerce.number().int().min(10).max(30_000).default(2000),
  RT_CLOSURE_TIME: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (24 h)').default('23:50'),
  RT_CLOSURE_CHECK_MS: z.coerce.number().int().min(10).default(30_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(10_000).default(10_000),
  WEBHOOK_RETRY_MS: z.coerce.number().int().min(10).max(30_000).default(5000),
  SDI_SIMULATOR_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  INVOICE_CHANNEL_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  INVOICE_CHANNEL_POLL_MS: z.coerce.number().int().min(10).max(3_600_000).default(60_000),
  INVOICE_ACCEPTANCE_CHECK_MS: z.coerce.number().int().min(10).default(60_000),
  EXPIRY_SCAN_MS: z.coerce.number().int().min(10).max(30_000).default(30_000),
  FINANZONLINE_URL: z.string().url().optional(),
  FINANZONLINE_VENDOR_UID: z.string().regex(/^[0-9A-Za-z]{10,24}$/, 'must be the software vendor\'s UID (10-24 letters and digits)').optional(),
  FINANZONLINE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(30_000),
  FINANZONLINE_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(5000),
  RKSV_OUTAGE_REPORT_AFTER_MS: z.coerce.number().int().min(1000).default(48 * 3600 * 1000),
  FINANZONLINE_SIMULATOR_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
});

export type RawConfig = z.infer<typeof ConfigSchema>;

export interface Config {
  port: number;
  host: string;
  environment: 'sandbox' | 'production';
  databaseUrl: string | undefined;
  /** PostgreSQL connections of the whole instance, shared out among its processes. */
  databasePoolSize: number;
  /** Processes serving requests: unless set, one per two cores on PostgreSQL (each with 10 or more connections); one on the embedded database. */
  serverProcesses: number;
  dataDir: string;
  /** Base of the links the service hands out, without a trailing slash. */
  publicBaseUrl: string;
  /** The production and sandbox bases of the API (contract 1: {base_url}, {sandbox_base_url}); the OpenAPI document's servers. */
  productionBaseUrl: string;
  sandboxBaseUrl: string;
  adminToken: string | undefined;
  redisUrl: string | undefined;
  rateLimitPerSecond: number;
  /** The proxies whose X-Forwarded-For names the client (hops, or their addresses); false: the socket's peer is the client. */
  trustProxy: number | string[] | false;
  secretsKey: string | undefined;
  idempotencyRetentionHours: number;
  /** Days an event is kept (with its deliveries), then swept; longer than a delivery's retry window. */
  eventRetentionDays: number;
  deviceTimeoutMs: number;
  bodyLimitBytes: number;
  logLevel: RawConfig['LOG_LEVEL'];
  seedDemoTenant: boolean;
  /** 'inline' runs the queues (exports, RT transmissions, webhook deliveries) in the server process; 'off' leaves them to `npm run worker`. */
  exportWorker: 'inline' | 'off';
  exportUrlTtlSeconds: number;
  exportPollMs: number;
  exportLeaseMs: number;
  /** The first retry delay of an RT closure's transmission; retries double it, up to 30 s. */
  rtTransmissionRetryMs: number;
  /** Local time in Italy (Europe/Rome, HH:MM) of the automatic daily closure of RT registers. */
  rtClosureTime: string;
  /** How often the server looks whether the automatic closure is due. */
  rtClosureCheckMs: number;
  /** The BMF's FinanzOnline web services (session, rkdb); unset: the sandbox simulates them, production cannot reach them. */
  finanzOnlineUrl: string | undefined;
  /** herstellerid of the FinanzOnline login: the software vendor's UID. */
  finanzOnlineVendorUid: string | undefined;
  /** Bound on one FinanzOnline request. */
  finanzOnlineTimeoutMs: number;
  /** The first retry delay of a FinanzOnline request that got no answer; retries double it, up to an hour. */
  finanzOnlineRetryMs: number;
  /** How long an RKSV signature unit's outage lasts before it is reported to FinanzOnline (§ 17 RKSV: 48 hours). */
  rksvOutageReportAfterMs: number;
  /** Sandbox: how long the simulated FinanzOnline takes to take up a submission (time to set a simulation after fiscalizing). */
  finanzOnlineSimulatorDelayMs: number;
  /** Bound on one webhook delivery attempt (DESIGN: 10 s). */
  webhookTimeoutMs: number;
  /** The first retry delay of a failed webhook delivery; retries double it, up to 30 s in the sandbox and an hour in production. */
  webhookRetryMs: number;
  /** Sandbox: how long the simulated SdI takes to notify the outcome of an Italian invoice. */
  sdiSimulatorDelayMs: number;
  /** Bound on one call to an e-invoicing intermediary (A-Cube): login, send, lookup, notifications. */
  invoiceChannelTimeoutMs: number;
  /** How often an intermediary is asked for the notifications of a file it received. */
  invoiceChannelPollMs: number;
  /** How often the server looks for delivered invoices whose recipient's silence now counts as acceptance. */
  invoiceAcceptanceCheckMs: number;
  /** How often the server looks for certificate reminders and expiring portal passwords (at most 30 s). */
  expiryScanMs: number;
}

/**
 * The process environment, after reading `path` (default `.env` in the working directory)
 * when it exists: its variables fill in what the environment does not set; a variable set in
 * the environment keeps its value.
 */
export function environmentWithDotEnv(path = '.env'): NodeJS.ProcessEnv {
  if (existsSync(path)) process.loadEnvFile(path);
  return process.env;
}

/**
 * SERVER_PROCESSES unset on PostgreSQL: one process per two cores, as long as each keeps 10 of
 * the pool's connections. The other half of the cores is PostgreSQL's, which needs about as much
 * CPU a request as the server does; on two cores one process did the same work with a quarter
 * less CPU than two (README: Performance).
 */
export function defaultServerProcesses(cores: number, databasePoolSize: number): number {
  return Math.max(1, Math.min(Math.floor(cores / 2), Math.floor(databasePoolSize / 10)));
}

/** Reads and validates settings; an invalid value stops the process with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = environmentWithDotEnv()): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const raw = parsed.data;
  if (!raw.DATABASE_URL && (raw.SERVER_PROCESSES ?? 1) > 1) {
    throw new Error('invalid configuration: SERVER_PROCESSES: the embedded database serves one process; set DATABASE_URL to run more');
  }
  const serverProcesses = raw.SERVER_PROCESSES ?? (raw.DATABASE_URL ? defaultServerProcesses(availableParallelism(), raw.DATABASE_POOL_SIZE) : 1);
  if (serverProcesses > 1 && serverProcesses * 2 > raw.DATABASE_POOL_SIZE) {
    throw new Error('invalid configuration: SERVER_PROCESSES: each process needs at least 2 of DATABASE_POOL_SIZE connections');
  }
  const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');
  // Unset, the links and both bases are this instance's address.
  const publicBaseUrl = withoutTrailingSlash(raw.PUBLIC_BASE_URL ?? `http://localhost:${raw.PORT}`);
  return {
    port: raw.PORT,
    host: raw.HOST,
    environment: raw.SERVICE_ENV,
    databaseUrl: raw.DATABASE_URL,
    databasePoolSize: raw.DATABASE_POOL_SIZE,
    serverProcesses,
    dataDir: raw.DATA_DIR,
    publicBaseUrl,
    productionBaseUrl: raw.PRODUCTION_BASE_URL ? withoutTrailingSlash(raw.PRODUCTION_BASE_URL) : publicBaseUrl,
    sandboxBaseUrl: raw.SANDBOX_BASE_URL ? withoutTrailingSlash(raw.SANDBOX_BASE_URL) : publicBaseUrl,
    adminToken: raw.ADMIN_TOKEN,
    redisUrl: raw.REDIS_URL,
    rateLimitPerSecond: raw.RATE_LIMIT_PER_SECOND,
    trustProxy: raw.TRUST_PROXY ?? false,
    secretsKey: raw.SECRETS_KEY,
    idempotencyRetentionHours: raw.IDEMPOTENCY_RETENTION_HOURS,
    eventRetentionDays: raw.EVENT_RETENTION_DAYS,
    deviceTimeoutMs: raw.DEVICE_TIMEOUT_MS,
    bodyLimitBytes: raw.BODY_LIMIT_BYTES,
    logLevel: raw.LOG_LEVEL,
    seedDemoTenant: raw.SEED_DEMO_TENANT,
    exportWorker: raw.EXPORT_WORKER,
    exportUrlTtlSeconds: raw.EXPORT_URL_TTL_SECONDS,
    exportPollMs: raw.EXPORT_POLL_MS,
    exportLeaseMs: raw.EXPORT_LEASE_MS,
    rtTransmissionRetryMs: raw.RT_TRANSMISSION_RETRY_MS,
    rtClosureTime: raw.RT_CLOSURE_TIME,
    rtClosureCheckMs: raw.RT_CLOSURE_CHECK_MS,
    webhookTimeoutMs: raw.WEBHOOK_TIMEOUT_MS,
    webhookRetryMs: raw.WEBHOOK_RETRY_MS,
    sdiSimulatorDelayMs: raw.SDI_SIMULATOR_DELAY_MS,
    invoiceChannelTimeoutMs: raw.INVOICE_CHANNEL_TIMEOUT_MS,
    invoiceChannelPollMs: raw.INVOICE_CHANNEL_POLL_MS,
    invoiceAcceptanceCheckMs: raw.INVOICE_ACCEPTANCE_CHECK_MS,
    expiryScanMs: raw.EXPIRY_SCAN_MS,
    finanzOnlineUrl: raw.FINANZONLINE_URL,
    finanzOnlineVendorUid: raw.FINANZONLINE_VENDOR_UID,
    finanzOnlineTimeoutMs: raw.FINANZONLINE_TIMEOUT_MS,
    finanzOnlineRetryMs: raw.FINANZONLINE_RETRY_MS,
    rksvOutageReportAfterMs: raw.RKSV_OUTAGE_REPORT_AFTER_MS,
    finanzOnlineSimulatorDelayMs: raw.FINANZONLINE_SIMULATOR_DELAY_MS,
  };
}
