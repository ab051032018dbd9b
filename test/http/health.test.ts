// GET /healthz (alive) and GET /readyz (database reachable, else 503 with the error envelope).
import { describe, expect, it } from 'vitest';
import { createTestApp, expectError, json } from '../support/testApp.js';

describe('health', () => {
  it('/healthz and /readyz answer 200 without a key', async () => {
    const t = await createTestApp();
    try {
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      expect(json(health)).toEqual({ status: 'ok' });
      expect(health.headers['x-request-id']).toBeTruthy();

      const ready = await t.app.inject({ method: 'GET', url: '/readyz', headers: { 'x-request-id': 'probe-1' } });
      expect(ready.statusCode).toBe(200);
      expect(json(ready)).toEqual({ status: 'ready', database: 'ok' });
      expect(ready.headers['x-request-id']).toBe('probe-1');

      // a wrong key does not matter to them
      expect((await t.app.inject({ method: 'GET', url: '/healthz', headers: { authorization: 'Bearer nope' } })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('/readyz is 503 with the envelope when the database is unreachable; /healthz stays 200', async () => {
    const t = await createTestApp();
    try {
      await t.database.close();
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      const body = expectError(ready, 503);
      expect(body.retryable).toBe(true);
      expect(body.code).toBe('service_unavailable');
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
