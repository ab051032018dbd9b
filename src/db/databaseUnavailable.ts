/**
 * Whether an error means the database could not be used at all (no connection,
 * a connection lost mid-request, the server refusing or shutting down
 * sessions), as opposed to a query the database answered with an error. The
 * first is the outside world's failure and worth a retry (503); the second is a
 * bug (500). Errors arrive as node-postgres raised them, through pg-pool, or
 * wrapped by Prisma's driver adapter; each layer is looked into.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return causesOf(error).some(meansUnavailable);
}

// SQLSTATE class 08 (connection exception), the three "server going away or not yet there"
// codes of class 57, and too_many_connections.
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[123]|53300)$/;

// FATAL and PANIC end the session: whatever the code, the connection is gone
// (e.g. 55000 "database is not currently accepting connections", which as an ERROR is a bug).
const SESSION_ENDING_SEVERITIES = new Set(['FATAL', 'PANIC']);

// Connection failures node-postgres and pg-pool report without a code.
const CONNECTION_LOST_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
]);

const SOCKET_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// Prisma's "can't reach", "timed out" and "server closed the connection".
const PRISMA_UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1017']);

// P2028 is any misuse of Prisma's transaction API, a bug; this one is the pool's checkout
// timeout one level up (an interactive transaction waited maxWait for a connection).
const PRISMA_TRANSACTION_START_TIMEOUT = 'Unable to start a transaction in the given time';

// The connection-level kinds of @prisma/adapter-pg's DriverAdapterError causes.
const ADAPTER_UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
  'AuthenticationFailed',
  'DatabaseAccessDenied',
  'DatabaseDoesNotExist',
]);

function meansUnavailable(candidate: Record<string, unknown>): boolean {
  const { code, severity, kind, message } = candidate;
  // A server error carries a severity; that tells its SQLSTATE apart from Prisma and errno codes.
  if (typeof severity === 'string') {
    return SESSION_ENDING_SEVERITIES.has(severity) || (typeof code === 'string' && UNAVAILABLE_SQLSTATES.test(code));
  }
  if (typeof kind === 'string') return ADAPTER_UNAVAILABLE_KINDS.has(kind);
  if (typeof code === 'string' && (SOCKET_ERROR_CODES.has(code) || PRISMA_UNAVAILABLE_CODES.has(code))) return true;
  if (typeof message !== 'string') return false;
  if (code === 'P2028') return message.includes(PRISMA_TRANSACTION_START_TIMEOUT);
  return CONNECTION_LOST_MESSAGES.has(message);
}

/** The error and what it wraps: `cause`, Prisma's `meta.driverAdapterError`, an AggregateError's `errors`. */
function causesOf(error: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (value: unknown, depth: number) => {
    if (typeof value !== 'object' || value === null || depth > 4 || found.includes(value as Record<string, unknown>)) return;
    const candidate = value as Record<string, unknown>;
    found.push(candidate);
    visit(candidate.cause, depth + 1);
    visit((candidate.meta as Record<string, unknown> | undefined)?.driverAdapterError, depth + 1);
    if (Array.isArray(candidate.errors)) for (const inner of candidate.errors) visit(inner, depth + 1);
  };
  visit(error, 0);
  return found;
}
