import { assertWritten } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secretBox.js';
import { FiscalDeviceError } from '../deviceErrors.js';
import { RegimeRuleError, type DeviceExchange, type FiscalDevice, type RecordToSign } from '../fiscalDevice.js';
import { chainValue } from './chainValue.js';
import { compactJws, FAILED_SIGNATURE, signingInput } from './compactJws.js';
import { publishedAmounts, type RksvFiscalRecord, type RksvReceiptType } from './fiscalInformation.js';
import { closingTypeOf, dueClosingReceipt, viennaMonth } from './monthlyReceipts.js';
import { qrCodeOf, receiptPayload, TAX_SET_ORDER, viennaLocalDateTime, type TaxSetCents } from './receiptCode.js';
import { signatureOrFailure, type SignatureUnit } from './signatureUnit.js';
import type { StoredSignatureUnit } from './signatureUnitDrivers.js';
import { taxSetOf, taxSetTotal, ZERO_TAX_SET } from './taxSets.js';
import { encryptTurnoverCounter } from './turnoverCounter.js';
import { queueRecoveryReport, queueSubmission } from './finanzOnline/submissions.js';

/** The state of an RKSV register that every receipt reads and advances. */
interface CashBoxState {
  cash_register_id: string;
  suite: string;
  signature_device_id: string;
  driver: string;
  public_key: string;
  private_key_enc: string | null;
  connection_enc: string | null;
  aes_key_enc: string;
  turnover_counter_size: number;
  receipt_count: string;
  turnover_counter_cents: string;
  last_jws: string | null;
  last_signed_at: Date | null;
  closed_month: string | null;
  signature_failed_since: Date | null;
  status: string;
}

/** The row `c` as one json value, the form the completion's lock reads it in too (FiscalRegister.lockedDeviceState). */
const CASH_BOX_STATE = `json_build_object(
  'cash_register_id', c.cash_register_id, 'signature_device_id', c.signature_device_id, 'public_key', c.public_key,
  'private_key_enc', c.private_key_enc, 'aes_key_enc', c.aes_key_enc, 'turnover_counter_size', c.turnover_counter_size,
  'receipt_count', c.receipt_count::text, 'turnover_counter_cents', c.turnover_counter_cents::text,
  'last_jws', c.last_jws, 'last_signed_at', c.last_signed_at, 'closed_month', c.closed_month,
  'signature_failed_since', c.signature_failed_since, 'status', c.status, 'suite', c.suite, 'driver', c.driver,
  'connection_enc', c.connection_enc) AS device_state`;

/**
 * The receipt chain of the RKSV register `register` (an alias of a registers row), locked unless
 * another transaction holds it (FiscalRegime.lockedDeviceStateSql).
 */
export const lockedCashBoxOf = (register: string) => `
  SELECT ${CASH_BOX_STATE} FROM rksv_cash_registers c
   WHERE c.id = ${register}.device_id AND ${register}.regime = 'RKSV'
     FOR UPDATE SKIP LOCKED`;

const LOCK_STATE = `SELECT ${CASH_BOX_STATE} FROM rksv_cash_registers c WHERE c.id = $1 FOR UPDATE`;

/** The state as CASH_BOX_STATE gives it: json has no timestamps, so those come as text. */
export type CashBoxStateJson = Omit<CashBoxState, 'last_signed_at' | 'signature_failed_since'> & { last_signed_at: string | null; signature_failed_since: string | null };

const dateOrNull = (text: string | null): Date | null => (text === null ? null : new Date(text));

const cashBoxStateOf = (json: CashBoxStateJson): CashBoxState => ({
  ...json,
  last_signed_at: dateOrNull(json.last_signed_at),
  signature_failed_since: dateOrNull(json.signature_failed_since),
});

/** Why the state's update below may fail to write. */
const CHAIN_MOVED = 'The RKSV receipt chain moved while receipts were issued';

/**
 * The state moves on only from the receipt count it was read at: the row lock
 * holds it there in a live transaction, and a statement that outlived its
 * rollback finds it moved, writes nothing and fails, with its transaction.
 * Sent pipelined (SqlClient.write) with the receipts and what follows.
 */
const ADVANCE_STATE = `
  WITH written AS (
    UPDATE rksv_cash_registers
       SET receipt_count = $3::bigint, turnover_counter_cents = $4::bigint, last_jws = $5, last_signed_at = $6,
           closed_month = $7, signature_failed_since = $8, status = $9
     WHERE id = $1 AND receipt_count = $2::bigint
    RETURNING 1)
  SELECT ${assertWritten(CHAIN_MOVED)}`;

const INSERT_RECEIPT = `
  INSERT INTO rksv_receipts (id, rksv_cash_register_id, register_id, receipt_number, type, operation_id, signed_at,
                             amounts_cents, turnover_counter_cents, jws, signature_device_failed)
  VALUES ($1, $2, $3, $4::bigint, $5, $6, $7, $8::bigint[], $9::bigint, $10, $11)`;

/** A receipt the register is asked to issue. */
export interface ReceiptRequest {
  type: RksvReceiptType;
  amounts: TaxSetCents;
  operationId: string | null;
}

/** A receipt as issued: its published record and its journal id. */
export interface IssuedReceipt {
  id: string;
  record: RksvFiscalRecord;
}

const TYPES_THAT_CLOSE_A_MONTH: ReadonlySet<RksvReceiptType> = new Set(['monthly', 'annual']);

/** A receipt to issue in this call; a monthly or annual one names the month it closes. */
type PlannedReceipt = ReceiptRequest & { closesMonth?: string };

export interface CashBoxDependencies {
  secrets: SecretBox;
  clock: () => Date;
  /** Bound on one call of the signature unit; past it the receipt carries the failure marker. */
  signatureTimeoutMs: number;
}

/**
 * The month a requested monthly or annual receipt closes: the current one in
 * Austria, whose type it must have (annual in December, monthly otherwise).
 */
function requestedClosing(type: RksvReceiptType, now: Date): string {
  const month = viennaMonth(now);
  const expected = closingTypeOf(month);
  if (type !== expected) {
    throw new RegimeRuleError('RKSV', 'type', `The receipt that closes ${month} is the ${expected} receipt, not a ${type} one (the annual receipt closes December)`);
  }
  return month;
}

/**
 * An Austrian register's RKSV receipt chain (reference rksv.md): every receipt
 * gets the next Belegnummer, adds its amounts to the turnover counter, is
 * chained to the previous receipt's JWS and signed by the signature unit, or,
 * when the unit fails, carries the failure marker and is issued all the same.
 * Receipts the law makes due come first, automatically: the monthly (annual in
 * January) receipt at a month change, and after an outage a signed collective
 * receipt once the unit works again.
 */
export class RksvCashBox implements FiscalDevice {
  constructor(
    private readonly id: string,
    private readonly registerId: string,
    /** The signature unit that holds the register's key, from what the register's row keeps of it. */
    private readonly unitOf: (stored: StoredSignatureUnit) => SignatureUnit,
    private readonly deps: CashBoxDependencies,
    /** The chain as the caller's transaction already locked it (CASH_BOX_STATE); used by the first issue only. */
    private locked: CashBoxStateJson | null = null,
  ) {}

  async sign(exchange: DeviceExchange, record: RecordToSign): Promise<RksvFiscalRecord | null> {
    // Register sessions are not RKSV receipts.
    if (record.kind !== 'goods_movement') return null;
    const issued = await this.issue(exchange, { type: 'standard', amounts: taxSetOf(record), operationId: record.operationId });
    return issued.record;
  }

  /** Issues the requested receipt after the ones that are due, in one exchange of reads and one of writes (held for the transaction's next round trip). */
  async issue(exchange: DeviceExchange, request: ReceiptRequest): Promise<IssuedReceipt> {
    const locked = this.locked ?? (await exchange(1, async (sql) => (await sql.query<{ device_state: CashBoxStateJson }>(LOCK_STATE, [this.id]))[0]?.device_state));
    this.locked = null;
    if (!locked || locked.status !== 'active') throw new FiscalDeviceError(1, 'inactive', 'The RKSV register is out of service');
    const state = cashBoxStateOf(locked);
    const aesKey = Buffer.from(this.deps.secrets.open(state.aes_key_enc), 'base64');
    const unit = this.unitOf({ id: this.id, ...state });
    // Receipt dates never go back, whatever the clock does.
    const now = new Date(Math.max(this.deps.clock().getTime(), state.last_signed_at?.getTime() ?? 0));

    const planned: PlannedReceipt[] = [];
    const closing = dueClosingReceipt(state.last_signed_at, state.closed_month, now);
    if (closing) planned.push({ type: closing.type, amounts: ZERO_TAX_SET, operationId: null, closesMonth: closing.month });
    if (state.signature_failed_since) planned.push({ type: 'collective', amounts: ZERO_TAX_SET, operationId: null });
    planned.push(TYPES_THAT_CLOSE_A_MONTH.has(request.type) ? { ...request, closesMonth: requestedClosing(request.type, now) } : request);

    let count = BigInt(state.receipt_count);
    let counter = BigInt(state.turnover_counter_cents);
    let previous = state.last_jws ?? state.cash_register_id;
    let failedSince = state.signature_failed_since;
    let closedMonth = state.closed_month;
    let unitWorks = true;
    const issued: (IssuedReceipt & { request: PlannedReceipt; counter: bigint })[] = [];
    for (const receipt of planned) {
      const receiptNumber = String(count + 1n);
      const receiptCounter = counter + taxSetTotal(receipt.amounts);
      const chain = chainValue(previous);
      const turnoverCounter = encryptTurnoverCounter({
        cashRegisterId: state.cash_register_id,
        receiptNumber,
        counterCents: receiptCounter,
        aesKey,
        size: state.turnover_counter_size,
      });
      const input = signingInput(
        receiptPayload({
          suite: state.suite,
          cashRegisterId: state.cash_register_id,
          receiptNumber,
          localDateTime: viennaLocalDateTime(now),
          amounts: receipt.amounts,
          turnoverCounter,
          signatureDeviceId: state.signature_device_id,
          chainValue: chain,
        }),
      );
      const signature: string | null = unitWorks ? await signatureOrFailure(unit, input, this.deps.signatureTimeoutMs) : null;
      unitWorks &&= signature !== null;
      // A collective receipt ends an outage only when signed; while the unit is still out there is none.
      if (receipt.type === 'collective' && signature === null) continue;
      const jws = compactJws(input, signature ?? FAILED_SIGNATURE);
      count += 1n;
      counter = receiptCounter;
      previous = jws;
      if (signature === null) failedSince ??= now;
      if (receipt.type === 'collective') failedSince = null;
      if (receipt.closesMonth) closedMonth = receipt.closesMonth;
      issued.push({
        id: newId('rkb'),
        request: receipt,
        counter,
        record: {
          regime: 'RKSV',
          document_number: receiptNumber,
          document_type: receipt.type,
          cash_register_id: state.cash_register_id,
          suite: state.suite,
          signature_device_id: state.signature_device_id,
          signed_at: now.toISOString(),
          amounts: publishedAmounts(receipt.amounts),
          turnover_counter_encrypted: turnoverCounter,
          chain_value: chain,
          jws,
          signature_device_failed: signature === null,
          public_key: state.public_key,
          verification: { qr_data: qrCodeOf(jws) },
        },
      });
    }

    const status = request.type === 'closing' ? 'closed' : 'active';
    await exchange(2, async (sql) => {
      await sql.write(ADVANCE_STATE, [
        this.id,
        state.receipt_count,
        count.toString(),
        counter.toString(),
        previous,
        now,
        closedMonth,
        failedSince,
        status,
      ]);
      for (const entry of issued) {
        const { amounts, operationId } = entry.request;
        await sql.write(INSERT_RECEIPT, [
          entry.id,
          this.id,
          this.registerId,
          entry.record.document_number,
          entry.record.document_type,
          operationId,
          now,
          `{${TAX_SET_ORDER.map((set) => amounts[set]).join(',')}}`,
          entry.counter.toString(),
          entry.record.jws,
          entry.record.signature_device_failed,
        ]);
      }
      // FinanzOnline hears of an outage's end (when it heard of its start) and of the register's decommission.
      if (state.signature_failed_since && !failedSince) await queueRecoveryReport(sql, this.id, now);
      if (status === 'closed') await queueSubmission(sql, this.id, 'decommission', { occurred_at: now.toISOString() });
    });
    const last = issued.at(-1)!;
    return { id: last.id, record: last.record };
  }
}
