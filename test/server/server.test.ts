// A real listening server, started exactly as the Docker image starts it (the Dockerfile's CMD and
// ENV, over `npm run build`'s output): pino logs carry the request id and never keys or secrets;
// SIGTERM, as `docker stop` sends it, drains in-flight requests and exits 0.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImageApp, imageRuntime, packagesImportedBy } from '../support/image.js';
import {
  connectionRefused,
  createEmptyPostgresDatabase,
  openConnection,
  parseResponses,
  ROOT,
  startServer,
  type RawResponse,
  tempDir,
  type ChildServer,
} from '../support/processes.js';
import { deuMerchantBody, itaMerchantBody } from '../support/testApp.js';

const TIMEOUT = 120_000;
const ADMIN = 'server-test-admin-token-9f8e7d6c5b4a';
const SECRETS_KEY = 'ab'.repeat(32);
const FISCONLINE_PASSWORD = 'Very-Secret-Portal-Pw-4711';
const FISCONLINE_PIN = '90817263545';

const image = imageRuntime();
let server: ChildServer;
let imageApp: Awaited<ReturnType<typeof buildImageApp>>;
let dir: ReturnType<typeof tempDir>;
let dropDatabase: (() => Promise<void>) | undefined;
let exitCode: number | null | undefined;
let pipelined: RawResponse | undefined;

beforeAll(async () => {
  imageApp = await buildImageApp();
  dir = tempDir();
  // The image's settings, on a free port (startServer's) and a temporary data folder.
  const { PORT: _imagePort, ...imageEnv } = image.env;
  const env: Record<string, string> = {
    ...imageEnv,
    DATA_DIR: dir.path,
    // The most verbose request log (the incoming line too, at debug): no secret reaches it, and
    // the drain test sees its requests arrive.
    LOG_LEVEL: 'debug',
    ADMIN_TOKEN: ADMIN,
    SECRETS_KEY,
    SEED_DEMO_TENANT: 'false',
  };
  if (process.env.DATABASE_URL) {
    const database = await createEmptyPostgresDatabase();
    env.DATABASE_URL = database.url;
    dropDatabase = database.drop;
  }
  expect(image.command[0], "the image's CMD runs node").toBe('node');
  // that node is the one running these tests
  server = await startServer(env, { argv: [process.execPath, ...image.command.slice(1)], cwd: imageApp.path });
}, TIMEOUT);

afterAll(async () => {
  if (exitCode === undefined) await server?.stop('SIGKILL');
  dir?.remove();
  imageApp?.remove();
  await dropDatabase?.();
});

async function adminCall(path: string, body: object) {
  const response = await fetch(`${server.url}/admin/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'x-request-id': 'admin-call' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Record<string, string>;
}

async function newKey(country = 'DEU') {
  const tenant = await adminCall('/tenants', { name: 'Log test' });
  return (await adminCall(`/tenants/${tenant.id}/api-keys`, { kind: 'tenant', country_code: country })).api_key;
}

const logLines = () =>
  server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);

describe("the image's command", () => {
  it('is node running the compiled server, so SIGTERM reaches the server itself and not npm or tsx', () => {
    const [program, ...args] = image.command;
    expect(program).toBe('node');
    expect(args.join(' ')).not.toMatch(/\b(npm|npx|tsx)\b/);
    const script = args.at(-1)!;
    expect(script).toMatch(/^dist\/.*\.js$/);
    expect(existsSync(join(imageApp.path, script))).toBe(true);
    expect(image.env.NODE_ENV).toBe('production');
  });

  it('imports only production dependencies, the only ones the image installs', () => {
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const imported = [...packagesImportedBy(join(imageApp.path, image.command.at(-1)!))];
    expect(imported).toContain('fastify');
    for (const name of imported) expect(Object.keys(dependencies), name).toContain(name);
  });
});

describe('logs', () => {
  it(
    'carry the request id and never the Authorization header, keys or secrets',
    async () => {
      const apiKey = await newKey('DEU');
      const itaKey = await newKey('ITA');
      const unknownKey = `svc_test_deu_${'Z'.repeat(32)}`;
      const headers = (key: string, requestId: string) => ({
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'x-request-id': requestId,
        'idempotency-key': `idem-${requestId}`,
      });

      const list = await fetch(`${server.url}/v1/merchants`, { headers: headers(apiKey, 'log-trace-list') });
      expect(list.status).toBe(200);
      expect(list.headers.get('x-request-id')).toBe('log-trace-list');

      const created = await fetch(`${server.url}/v1/merchants`, {
        method: 'POST',
        headers: headers(apiKey, 'log-trace-create'),
        body: JSON.stringify(deuMerchantBody()),
      });
      expect(created.status).toBe(201);

      const ita = await fetch(`${server.url}/v1/merchants`, {
        method: 'POST',
        headers: headers(itaKey, 'log-trace-ita'),
        body: JSON.stringify(itaMerchantBody({ password: FISCONLINE_PASSWORD, pin: FISCONLINE_PIN })),
      });
      expect(ita.status).toBe(201);

      const invalid = await fetch(`${server.url}/v1/merchants`, {
        method: 'POST',
        headers: headers(apiKey, 'log-trace-invalid'),
        body: JSON.stringify({ ...deuMerchantBody(), tax_id: FISCONLINE_PASSWORD }),
      });
      expect(invalid.status).toBe(400);

      const rejected = await fetch(`${server.url}/v1/merchants`, { headers: headers(unknownKey, 'log-trace-401') });
      expect(rejected.status).toBe(401);

      const generated = await fetch(`${server.url}/v1/merchants`, { headers: { authorization: `Bearer ${apiKey}` } });
      const generatedId = generated.headers.get('x-request-id')!;
      expect(generatedId).toBeTruthy();

      // Log lines leave each server process in blocks, within a quarter of a second: wait until
      // every request's completion is logged.
      for (const requestId of ['log-trace-list', 'log-trace-create', 'log-trace-ita', 'log-trace-invalid', 'log-trace-401', generatedId]) {
        await server.waitForOutput(new RegExp(`"reqId":"${requestId}".*request completed`));
      }

      const output = server.stdout() + server.stderr();
      for (const secret of [apiKey, itaKey, unknownKey, apiKey.slice('svc_test_deu_'.length), ADMIN, SECRETS_KEY, FISCONLINE_PASSWORD, FISCONLINE_PIN]) {
        expect(output).not.toContain(secret);
      }
      expect(output).not.toMatch(/svc_test_[a-z]{3}_[0-9A-Za-z]{22,}/);
      expect(output.toLowerCase()).not.toContain('"authorization"');

      const lines = logLines();
      for (const requestId of ['log-trace-list', 'log-trace-create', 'log-trace-ita', 'log-trace-invalid', 'log-trace-401', generatedId]) {
        const mine = lines.filter((line) => line.reqId === requestId);
        expect(mine.length, requestId).toBeGreaterThanOrEqual(2); // incoming request (debug) + request completed
        expect(mine.some((line) => line.res?.statusCode)).toBe(true);
      }
      // every request-scoped line has a request id
      for (const line of lines.filter((l) => l.req || l.res)) expect(line.reqId).toBeTruthy();
    },
    TIMEOUT,
  );
});

describe('SIGTERM', () => {
  it(
    'stops accepting connections, drains in-flight requests (keep-alive ones too), and exits 0',
    async () => {
      const apiKey = await newKey('DEU');
      const body = JSON.stringify(deuMerchantBody());
      const length = Buffer.byteLength(body);
      const head = (requestId: string) =>
        `POST /v1/merchants HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\nAuthorization: Bearer ${apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${length}\r\nX-Request-Id: ${requestId}\r\n\r\n`;

      // Three requests are in flight: headers and half of each body sent.
      const inFlight = await Promise.all(['drain-1', 'drain-2', 'drain-3'].map(() => openConnection(server.port)));
      inFlight.forEach(({ socket }, i) => socket.write(head(`drain-${i + 1}`) + body.slice(0, 40)));
      for (let i = 1; i <= 3; i++) await server.waitForOutput(new RegExp(`"reqId":"drain-${i}".*incoming request`));

      // An idle keep-alive connection must not hold the shutdown open.
      const idle = await openConnection(server.port);
      idle.socket.write(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`);
      while (!idle.text().includes('\r\n\r\n')) await new Promise((r) => setTimeout(r, 10));

      server.child.kill('SIGTERM');
      await server.waitForOutput('draining');
      // no new connections once draining
      let refused = false;
      for (let i = 0; i < 200 && !refused; i++) {
        refused = await connectionRefused(server.port);
        if (!refused) await new Promise((r) => setTimeout(r, 10));
      }
      expect(refused).toBe(true);
      expect(server.child.exitCode).toBeNull(); // still running: the requests are not done

      await new Promise((r) => setTimeout(r, 200));
      // On the first connection a second request is pipelined behind the first, in the same write as the
      // first one's last bytes: the server holds it before it can answer the first, so it is in flight too.
      const pipelinedRequest = `GET /v1/merchants HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${apiKey}\r\nX-Request-Id: drain-pipelined\r\n\r\n`;
      inFlight.forEach(({ socket }, i) => socket.write(body.slice(40) + (i === 0 ? pipelinedRequest : '')));

      const responses = await Promise.all(inFlight.map(async ({ received }) => parseResponses(await received)));
      const drained = Date.now();
      expect(responses.map((answers) => answers.length)).toEqual([2, 1, 1]);
      for (const [i, [response]] of responses.entries()) {
        expect(response.status).toBe(201);
        expect(response.headers['x-request-id']).toBe(`drain-${i + 1}`);
        expect(JSON.parse(response.body)).toMatchObject({ legal_name: 'Bäckerei Müller GmbH', resource_version: 1 });
      }
      pipelined = responses[0][1];
      exitCode = await server.exited;
      expect(exitCode).toBe(0);
      // promptly: well within Docker's 10 s before SIGKILL, not at the 30 s forced exit
      expect(Date.now() - drained).toBeLessThan(5_000);
      const idleResponses = parseResponses(await idle.received);
      expect(idleResponses[0]?.status).toBe(200);
    },
    TIMEOUT,
  );

  it('a request pipelined behind an in-flight one during the drain is answered by the API, then its connection closes', () => {
    expect(pipelined, 'the drain test above received the pipelined response').toBeDefined();
    expect(pipelined!.status).toBe(200);
    expect(pipelined!.headers['x-request-id']).toBe('drain-pipelined');
    expect(pipelined!.headers.connection).toBe('close');
    // a list: it runs alongside the creates ahead of it, so which of them it sees may vary
    expect(JSON.parse(pipelined!.body)).toMatchObject({ data: expect.any(Array) });
  });
});
