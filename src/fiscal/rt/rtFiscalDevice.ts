import type { SqlClient } from '../../db/sql.js';
import { formatAmount, parseAmount, sumAmounts } from '../../domain/money.js';
import { newId } from '../../lib/ids.js';
import { FiscalDeviceError } from '../deviceErrors.js';
import type { DeviceExchange, FiscalDevice, GoodsMovementToSign, RecordToSign } from '../fiscalDevice.js';
import type { RtFiscalRecord } from './fiscalInformation.js';
import { rtDocumentOf } from './rtDocument.js';
import { rtDocumentNumber, type RtDocumentRequest, type RtDriver, type RtIssuedDocument } from './rtDriver.js';
import { rtTaxKey } from './rtTaxes.js';

/** An RT device row as the drivers need it. */
export interface RtDeviceRow {
  id: string;
  driver: string;
  serial: string;
  url: string | null;
  printer_device_id: string | null;
  departments: Record<string, number> | null;
  status: string;
  /** The open fiscal day as last recorded. */
  fiscal_day: number;
}

/** The row `d` as one json value, the form the completion's lock reads it in too (FiscalRegister.lockedDeviceState). */
const RT_DEVICE_STATE = `json_build_object(
  'id', d.id, 'driver', d.driver, 'serial', d.serial, 'url', d.url, 'printer_device_id', d.printer_device_id,
  'departments', d.departments, 'status', d.status, 'fiscal_day', d.fiscal_day) AS device_state`;

/**
 * The RT device of the Italian register `register` (an alias of a registers row), locked unless
 * another transaction holds it (FiscalRegime.lockedDeviceStateSql).
 */
export const lockedRtDeviceOf = (register: string) => `
  SELECT ${RT_DEVICE_STATE} FROM rt_devices d
   WHERE d.id = ${register}.device_id AND ${register}.regime = 'RT'
     FOR UPDATE SKIP LOCKED`;

const LOCK_DEVICE = `SELECT ${RT_DEVICE_STATE} FROM rt_devices d WHERE d.id = $1 FOR UPDATE`;

/** The device's numbering as the driver reported it (a printer numbers its documents itself). */
const RECORD_NUMBERING = `UPDATE rt_devices SET fiscal_day = $2, progressive = $3 WHERE id = $1`;

/** The register's fiscalization.rt shows the open fiscal day: written when the device reports another one. */
export const RECORD_FISCAL_DAY = `
  UPDATE registers SET device_details = jsonb_set(device_details, '{fiscal_day}', to_jsonb($2::int))
   WHERE id = $1 AND (device_details->>'fiscal_day')::int IS DISTINCT FROM $2::int`;

const INSERT_DOCUMENT = `
  INSERT INTO rt_documents (id, rt_device_id, register_id, operation_id, kind, fiscal_day, progressive, document_number,
                            issued_at, totals, paid_cash, paid_electronic, lottery_code, reference)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::json, $11, $12, $13, $14::json)`;

/** Gross per rate or natura, after cart discounts spread over the lines in proportion to their gross. */
function totalsOf(request: RtDocumentRequest): { tax: string; gross: string }[] {
  const byTax = new Map<string, ReturnType<typeof parseAmount>>();
  const discount = sumAmounts(request.discounts.map((entry) => entry.amount));
  const linesGross = sumAmounts(request.lines.map((line) => line.total));
  for (const line of request.lines) {
    const gross = parseAmount(line.total);
    const share = linesGross.isZero() ? gross.times(0) : discount.times(gross).dividedBy(linesGross);
    const key = rtTaxKey(line.tax);
    byTax.set(key, (byTax.get(key) ?? gross.times(0)).plus(gross.minus(share)));
  }
  return [...byTax].map(([tax, gross]) => ({ tax, gross: formatAmount(gross.toDecimalPlaces(2), 2) }));
}

const paid = (request: RtDocumentRequest, kind: 'cash' | 'electronic') =>
  formatAmount(sumAmounts(request.payments.filter((payment) => payment.kind === kind).map((payment) => payment.amount)), 2);

/**
 * An Italian register's RT (DESIGN "Italy: RT"): a goods movement becomes a
 * documento commerciale (or di reso) that the driver's device numbers; the
 * document is journaled in rt_documents for the daily closure. The device row
 * is locked for the whole exchange (by the caller's read when it passes
 * `locked`), so one register's documents are issued one at a time, on one
 * instance or many.
 */
export class RtFiscalDevice implements FiscalDevice {
  constructor(
    private readonly deviceId: string,
    private readonly registerId: string,
    private readonly driverOf: (device: RtDeviceRow) => RtDriver,
    /** The device row as the caller's transaction already locked it; used by the first document only. */
    private locked: RtDeviceRow | null = null,
  ) {}

  async sign(exchange: DeviceExchange, record: RecordToSign): Promise<RtFiscalRecord | null> {
    // Register sessions are not RT documents.
    if (record.kind !== 'goods_movement') return null;
    const request = rtDocumentOf(record);
    const row = this.locked ?? (await exchange(1, async (sql) => (await sql.query<{ device_state: RtDeviceRow }>(LOCK_DEVICE, [this.deviceId]))[0]?.device_state));
    this.locked = null;
    if (row?.status !== 'active') throw new FiscalDeviceError(1, 'inactive', 'The RT device is out of service');
    const device = { row, driver: this.driverOf(row) };
    const issued = await device.driver.issueDocument(exchange, request);
    await exchange(2, (sql) => this.journal(sql, record, request, issued, device.row.fiscal_day));
    return {
      regime: 'RT',
      document_type: request.kind,
      document_number: rtDocumentNumber(issued.fiscalDay, issued.progressive),
      fiscal_day: issued.fiscalDay,
      document_progressive: issued.progressive,
      device_serial: issued.deviceSerial,
      issued_at: issued.issuedAt.toISOString(),
      lottery_code: request.lotteryCode,
      referenced_document: request.reference && {
        document_number: request.reference.documentNumber,
        device_serial: request.reference.deviceSerial,
        issued_at: request.reference.issuedAt.toISOString(),
      },
      // The AdE offers no public check of a single documento commerciale; the customer's copy is the hosted receipt.
      verification: { url: record.receiptUrl },
    };
  }

  /** The journal of an issued document; nothing of it is read back, so it leaves with the transaction's next round trip (SqlClient.write). */
  private async journal(
    sql: SqlClient,
    record: GoodsMovementToSign,
    request: RtDocumentRequest,
    issued: RtIssuedDocument,
    recordedFiscalDay: number,
  ): Promise<void> {
    await sql.write(RECORD_NUMBERING, [this.deviceId, issued.fiscalDay, issued.progressive]);
    // Only a printer that closed its day on its own reports another day than the one recorded.
    if (issued.fiscalDay !== recordedFiscalDay) await sql.write(RECORD_FISCAL_DAY, [this.registerId, issued.fiscalDay]);
    await sql.write(INSERT_DOCUMENT, [
      newId('rtd'),
      this.deviceId,
      this.registerId,
      record.operationId,
      request.kind,
      issued.fiscalDay,
      issued.progressive,
      rtDocumentNumber(issued.fiscalDay, issued.progressive),
      issued.issuedAt,
      JSON.stringify(totalsOf(request)),
      paid(request, 'cash'),
      paid(request, 'electronic'),
      request.lotteryCode,
      request.reference &&
        JSON.stringify({
          document_number: request.reference.documentNumber,
          device_serial: request.reference.deviceSerial,
          issued_at: request.reference.issuedAt.toISOString(),
        }),
    ]);
  }
}
