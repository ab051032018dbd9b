// Register session state machine (contract 3.2) with every 409 code, and the
// cash count's expected amount and signed difference (DESIGN: opening + cash
// payments of completed operations of the session + adjustments).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, type TestApp } from '../support/testApp.js';
import {
  createAndCompleteSale,
  createOperation,
  exchangeBody,
  expectApiError,
  fiscalize,
  getOp,
  mustComplete,
  mustCreate,
  plainRegister,
  returnBody,
  saleBody,
  sessionEvent,
  voidOp,
  type OperationsFixture,
} from '../support/operations.js';

let t: TestApp;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  apiKey = (await createTenantWithKey(t.database, 'DEU')).apiKey;
});
afterAll(() => t.close());

async function fiscalizedRegister(): Promise<OperationsFixture> {
  const fx = await plainRegister(t.app, apiKey);
  expect((await fiscalize(t.app, fx.headers, fx.registerId)).statusCode).toBe(200);
  return fx;
}

const cash = (amount: string) => ({ payment_id: `cash-${amount}`, method: 'cash', amount, currency: 'EUR', status: 'captured' });
const card = (amount: string) => ({ payment_id: `card-${amount}`, method: 'card', amount, currency: 'EUR', status: 'captured' });

describe('without an open session', () => {
  it('a POS goods movement is 409 no_open_session (alias register_no_open_session); ONLINE is unaffected', async () => {
    const fx = await fiscalizedRegister();
    for (const body of [saleBody(fx.registerId), returnBody(fx.registerId, null), exchangeBody(fx.registerId, null)]) {
      const error = expectApiError(await createOperation(t.app, fx.headers, body), 409, 'no_open_session');
      expect(error.details.alias).toBe('register_no_open_session');
    }
    expect((await createOperation(t.app, fx.headers, saleBody(null))).statusCode).toBe(201);
  });

  it('adjustment, count and close are 409 no_open_session', async () => {
    const fx = await plainRegister(t.app, apiKey);
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_adjustment', { amount: '1.00' }), 409, 'no_open_session');
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '0' }), 409, 'no_open_session');
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close'), 409, 'no_open_session');
  });

  it('a session event on an unknown register is 404', async () => {
    const fx = await plainRegister(t.app, apiKey);
    expectApiError(await sessionEvent(t.app, fx.headers, 'reg_unknown', 'session_open'), 404, 'not_found');
  });
});

describe('open session', () => {
  it('a second session_open is 409 session_invalid_state', async () => {
    const fx = await plainRegister(t.app, apiKey);
    const opened = await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId });
    expect(opened.opening_amount).toBe('0.00');
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_open', { opening_amount: '10' }), 409, 'session_invalid_state');
  });

  it('session_close before the count is 409 session_not_counted', async () => {
    const fx = await plainRegister(t.app, apiKey);
    await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId });
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close'), 409, 'session_not_counted');
    expectApiError(
      await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close', { closing_adjustment_amount: '-10.00' }),
      409,
      'session_not_counted',
    );
  });

  it('session_close with counted_closing_amount or discrepancy_note is 400 (rule 9)', async () => {
    const fx = await plainRegister(t.app, apiKey);
    await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId });
    await mustCreate(t.app, fx.headers, { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '0' });
    const counted = expectApiError(
      await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close', { counted_closing_amount: '0' }),
      400,
      'invalid_request',
    );
    expect(counted.details.field).toBe('counted_closing_amount');
    const note = expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close', { discrepancy_note: 'x' }), 400, 'invalid_request');
    expect(note.details.field).toBe('discrepancy_note');
    // The session is still counted, so a proper close goes through.
    expect((await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close')).statusCode).toBe(201);
  });

  it('session bodies are checked for shape (400)', async () => {
    const fx = await plainRegister(t.app, apiKey);
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_open', { opening_amount: 'ten' }), 400, 'invalid_request');
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_open', { opening_amount: 10 }), 400, 'invalid_request');
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_open', { source: 'ONLINE' }), 400, 'invalid_request');
    expectApiError(await createOperation(t.app, fx.headers, { type: 'session_open' }), 400, 'invalid_request');
    await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId });
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_adjustment'), 400, 'invalid_request');
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count'), 400, 'invalid_request');
  });

  it('impossible drawer amounts are 409 session_invalid_state (contract 7: counts or amounts invalid)', async () => {
    const fx = await plainRegister(t.app, apiKey);
    const opening = expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_open', { opening_amount: '-1.00' }), 409, 'session_invalid_state');
    expect(opening.details.field).toBe('opening_amount');
    await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId, opening_amount: '30.00' });
    const count = expectApiError(
      await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '-0.01' }),
      409,
      'session_invalid_state',
    );
    expect(count.details.field).toBe('counted_closing_amount');
    await mustCreate(t.app, fx.headers, { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '30.00' });
    // Counted 30.00: taking out more than that at close is impossible; taking out all of it is fine.
    const close = expectApiError(
      await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close', { closing_adjustment_amount: '-30.01' }),
      409,
      'session_invalid_state',
    );
    expect(close.details.field).toBe('closing_adjustment_amount');
    expect((await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close', { closing_adjustment_amount: '-30.00' })).statusCode).toBe(201);
  });
});

describe('cash count', () => {
  it('expects opening + cash payments of completed operations of the session + adjustments, and signs the difference', async () => {
    const fx = await fiscalizedRegister();
    const opened = await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId, opening_amount: '100.00' });
    const sessionId = opened.session_id;

    const saleA = await createAndCompleteSale(t.app, fx); // +11.90 cash
    await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(fx.registerId)), [card('11.90')]); // card: 0
    await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(fx.registerId)), [cash('5.00'), card('6.90')]); // +5.00
    await mustCreate(t.app, fx.headers, saleBody(fx.registerId)); // still open: 0
    expect((await voidOp(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(fx.registerId)))).statusCode).toBe(200); // voided: 0
    await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, returnBody(fx.registerId, saleA.id)), [cash('-11.90')]); // -11.90
    await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, exchangeBody(fx.registerId, saleA.id)), [cash('-6.55')]); // -6.55
    await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(null)), [cash('11.90')]); // ONLINE, no session: 0
    const out = await mustCreate(t.app, fx.headers, { type: 'session_cash_adjustment', register_id: fx.registerId, amount: '-20.00', note: 'Bank' });
    await mustCreate(t.app, fx.headers, { type: 'session_cash_adjustment', register_id: fx.registerId, amount: '5' });
    expect(out.session_id).toBe(sessionId);

    // 100.00 + 11.90 + 5.00 − 11.90 − 6.55 − 20.00 + 5.00 = 83.45
    const counted = await mustCreate(t.app, fx.headers, {
      type: 'session_cash_count',
      register_id: fx.registerId,
      counted_closing_amount: '83.00',
      discrepancy_note: 'Münze verloren',
    });
    expect(counted).toMatchObject({
      type: 'session_cash_count',
      status: 'completed',
      session_id: sessionId,
      counted_closing_amount: '83.00',
      expected_closing_amount: '83.45',
      closing_cashcount_diff: '-0.45',
      discrepancy_note: 'Münze verloren',
    });
    const read = await getOp(t.app, fx.headers, counted.id);
    expect(read.json()).toEqual(counted);

    const closed = await mustCreate(t.app, fx.headers, { type: 'session_close', register_id: fx.registerId, closing_adjustment_amount: '-83.00', closing_adjustment_note: 'Tresor' });
    expect(closed).toMatchObject({ session_id: sessionId, closing_adjustment_amount: '-83.00', closing_adjustment_note: 'Tresor' });

    // A new session starts from its own opening amount; a surplus is a positive difference.
    const reopened = await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId });
    expect(reopened.session_id).not.toBe(sessionId);
    const surplus = await mustCreate(t.app, fx.headers, { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '10.00' });
    expect(surplus).toMatchObject({ session_id: reopened.session_id, expected_closing_amount: '0.00', closing_cashcount_diff: '10.00', discrepancy_note: null });
  });

  it('on a non-fiscalized register the session events are recorded unsigned', async () => {
    const fx = await plainRegister(t.app, apiKey);
    await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId, opening_amount: '20.00' });
    const counted = await mustCreate(t.app, fx.headers, { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '19.00' });
    expect(counted).toMatchObject({ expected_closing_amount: '20.00', closing_cashcount_diff: '-1.00' });
    const closed = await mustCreate(t.app, fx.headers, { type: 'session_close', register_id: fx.registerId, closing_adjustment_amount: '-19.00' });
    const rows = await t.database.prisma.operation.findMany({ where: { id: { in: [counted.id, closed.id] } } });
    expect(rows.map((row) => row.fiscalInformation)).toEqual([null, null]);
  });
});

describe('counted session', () => {
  it('every post except close is 409 session_already_counted; close then ends the session', async () => {
    const fx = await fiscalizedRegister();
    await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId, opening_amount: '10.00' });
    const sale = await createAndCompleteSale(t.app, fx);
    await mustCreate(t.app, fx.headers, { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '21.90' });

    for (const body of [saleBody(fx.registerId), returnBody(fx.registerId, sale.id), exchangeBody(fx.registerId, sale.id)]) {
      expectApiError(await createOperation(t.app, fx.headers, body), 409, 'session_already_counted');
    }
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_adjustment', { amount: '1.00' }), 409, 'session_already_counted');
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '21.90' }), 409, 'session_already_counted');
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_open'), 409, 'session_already_counted');

    expect((await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close')).statusCode).toBe(201);
    expectApiError(await createOperation(t.app, fx.headers, saleBody(fx.registerId)), 409, 'no_open_session');
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close'), 409, 'no_open_session');
  });
});
