// The sandbox console (GET /sandbox): served in the sandbox only, with a strict CSP and no caching;
// in Chromium it shows what the public API returns for a pasted sandbox key, sets a fault
// simulation, refuses a live key without sending anything, and never puts the key into the page.
import { chromium, type Browser, type Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { createAndCompleteSale, fiscalizedRegisterWithSession, sessionEvent, type OperationsFixture } from '../support/operations.js';
import { freePort } from '../support/processes.js';
import { auth, createTenantWithKey, createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { requireTools } from '../support/tools.js';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const BROWSER_TEST_TIMEOUT_MS = 90_000;

let t: TestApp;
let baseUrl: string;
let apiKey: string;
let fx: OperationsFixture;
let sale: { id: string; receipt_id: string; fiscal_information: { end_event: { signature: string }; verification: { qr_data: string } } };
let webhookSecret: string;
let browser: Browser | undefined;

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  // The receipt links the API returns point at this listening instance.
  t = await createTestApp({ PUBLIC_BASE_URL: baseUrl });
  ({ apiKey } = await createTenantWithKey(t.database));
  fx = await fiscalizedRegisterWithSession(t.app, apiKey);
  const endpoint = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: fx.headers,
    payload: { url: 'http://127.0.0.1:9/hooks', events: ['*'] },
  });
  expect(endpoint.statusCode).toBe(201);
  webhookSecret = json(endpoint).secret;
  sale = await createAndCompleteSale(t.app, fx);
  await t.app.listen({ port, host: '127.0.0.1' });
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** Chromium, launched once for the suite; skipped (failed in CI) without it. */
async function chromiumFor(context: TestContext): Promise<Browser> {
  requireTools(context, process.env.CHROMIUM_PATH ?? 'chromium');
  browser ??= await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
  return browser;
}

/** A fresh page that records every request it sends and every script error or CSP violation it logs. */
async function consolePage(context: TestContext) {
  const session = await (await chromiumFor(context)).newContext();
  const page = await session.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => problems.push(error.message));
  // Chromium asks for /favicon.ico by itself; the service has none, and the page did not ask.
  const ownRequest = (url: string) => new URL(url).pathname !== '/favicon.ico';
  page.on('console', (message) => {
    if (message.type() === 'error' && ownRequest(message.location().url || baseUrl)) problems.push(message.text());
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && ownRequest(response.url())) problems.push(`${response.status()} ${response.url()}`);
  });
  const response = await page.goto(`${baseUrl}/sandbox`);
  expect(response?.status()).toBe(200);
  return { session, page, requests, problems };
}

async function connect(page: Page, key: string) {
  await page.fill('#api-key', key);
  await page.click('#connect');
}

describe('GET /sandbox (app.inject)', () => {
  it('serves the page, its script and its style without a key, uncached, under a CSP without inline code', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/sandbox' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page.body).not.toMatch(/<style|\sstyle=|\son\w+=/);
    expect(page.body).toMatch(/<input id="api-key" type="password"/);

    const script = await t.app.inject({ method: 'GET', url: '/sandbox/console.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['content-security-policy']).toBe(csp);
    expect(script.body).not.toContain('innerHTML');
    const style = await t.app.inject({ method: 'GET', url: '/sandbox/console.css' });
    expect(style.statusCode).toBe(200);
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('is not in the OpenAPI document', async () => {
    const document = json(await t.app.inject({ method: 'GET', url: '/openapi-json' }));
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/sandbox'))).toEqual([]);
  });

  it('does not exist in production: 404 with the error envelope', async () => {
    const production = await createTestApp({ SERVICE_ENV: 'production' });
    try {
      for (const url of ['/sandbox', '/sandbox/console.js', '/sandbox/console.css']) {
        expectError(await production.app.inject({ method: 'GET', url }), 404, 'not_found');
      }
    } finally {
      await production.close();
    }
  });

  it('the API itself refuses a key of the other environment', async () => {
    const live = await createTenantWithKey(t.database, 'DEU', 'live');
    expectError(await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(live.apiKey) }), 401, 'unauthorized');
  });
});

describe('the console in Chromium', () => {
  it('shows the register, the sale with its signature and receipt, sets a simulation, and never shows the key', { timeout: BROWSER_TEST_TIMEOUT_MS }, async (context) => {
    const { session, page, problems } = await consolePage(context);
    await connect(page, apiKey);
    await page.locator(`#merchant-select option[value="${fx.merchantId}"]`).waitFor({ state: 'attached' });
    await page.selectOption('#merchant-select', fx.merchantId);

    const register = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    const card = page.locator(`.register[data-register-id="${fx.registerId}"]`);
    await expect.poll(() => card.textContent()).toContain('fiscalized');
    const cardText = await card.textContent();
    expect(cardText).toContain('KassenSichV');
    expect(cardText).toContain(register.fiscalization.tse_serial);
    expect(cardText).toContain(register.fiscalization.client_id);

    const row = page.locator(`.operation[data-operation-id="${sale.id}"]`);
    await row.waitFor();
    const rowText = await row.textContent();
    expect(rowText).toContain('completed');
    expect(rowText).toContain('11.90 EUR');
    expect(rowText).toContain(sale.fiscal_information.end_event.signature);
    expect(rowText).toContain(sale.fiscal_information.verification.qr_data);
    const receiptLink = row.locator('.receipt a');
    await receiptLink.waitFor();
    const receipt = json(await t.app.inject({ method: 'GET', url: `/v1/receipts/${sale.receipt_id}`, headers: fx.headers }));
    const hosted = await receiptLink.getAttribute('href');
    expect(hosted).toBe(receipt.links.hosted);
    const [receiptPage] = await Promise.all([session.waitForEvent('page'), receiptLink.click()]);
    await receiptPage.waitForLoadState();
    expect(receiptPage.url()).toBe(hosted);
    expect(await receiptPage.textContent('body')).toContain('Bäckerei Müller GmbH');
    await receiptPage.close();

    const webhook = page.locator('.webhook');
    await expect.poll(() => webhook.textContent()).toContain('http://127.0.0.1:9/hooks');
    await expect.poll(() => webhook.locator('.deliveries li').count()).toBeGreaterThan(0);
    await expect.poll(() => page.textContent('#exports-status')).toBe('No exports.');

    await card.locator('select.device-mode').selectOption('unreachable');
    await card.locator('button.apply-simulation').click();
    await expect.poll(() => card.locator('.simulation-result').textContent()).toBe('Simulation in force: fiscal_device unreachable');
    // In force: the device now fails the next signing.
    const countWhileUnreachable = await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '100.00' });
    expect(expectError(countWhileUnreachable, 422, 'validation_error').details?.phase).toBe(1);

    const html = await page.content();
    const text = await page.locator('body').innerText();
    for (const shown of [html, text, page.url()]) {
      expect(shown).not.toContain(apiKey);
      expect(shown).not.toContain(webhookSecret);
    }
    expect(await page.inputValue('#api-key')).toBe('');
    // Strings, run in the page: the test's TypeScript knows no DOM.
    const storage = await page.evaluate<{ session: string | null; local: number }>("({ session: sessionStorage.getItem('sandboxConsole.apiKey'), local: localStorage.length })");
    expect(storage).toEqual({ session: apiKey, local: 0 });
    expect(problems).toEqual([]);
    await session.close();
  });

  it('refuses a live key itself: a message, and no request to /v1', { timeout: BROWSER_TEST_TIMEOUT_MS }, async (context) => {
    const { session, page, requests, problems } = await consolePage(context);
    const liveKey = 'svc_live_deu_xxxxxxxx';
    await connect(page, liveKey);
    await expect.poll(() => page.textContent('#key-status')).toContain('This is a live (production) key');
    expect(requests.filter((url) => new URL(url).pathname.startsWith('/v1'))).toEqual([]);
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    expect(await page.content()).not.toContain(liveKey);
    expect(await page.isHidden('#merchant-section')).toBe(true);
    expect(problems).toEqual([]);
    await session.close();
  });
});
