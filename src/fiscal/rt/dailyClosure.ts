import type { SqlClient } from '../../db/sql.js';
import { rtDayTotals, type RtJournaledDocument } from '../../domain/rtDayTotals.js';
import { newId } from '../../lib/ids.js';
import { FiscalDeviceError, withDeviceTimeout } from '../deviceErrors.js';
import type { DeviceExchange, DeviceOptions, FiscalDependencies } from '../fiscalDevice.js';
import { withSimulatedFault, type DeviceSimulation } from '../simulatedFaults.js';
import { buildCor10, signCor10 } from './cor10.js';
import { rtDriverFor } from './drivers.js';
import { RECORD_FISCAL_DAY, type RtDeviceRow } from './rtFiscalDevice.js';

const LOCK_DEVICE = `
  SELECT d.id, d.merchant_id, d.register_id, d.driver, d.serial, d.url, d.printer_device_id, d.departments, d.status,
         d.fiscal_day, d.transmission_progressive, d.certificate, d.sealed_private_key, d.created_at,
         r.device_simulation
    FROM rt_devices d JOIN registers r ON r.id = d.register_id
   WHERE d.id = $1 FOR UPDATE OF d`;

const DAY_DOCUMENTS = `
  SELECT kind, totals, paid_cash::text AS paid_cash, paid_electronic::text AS paid_electronic
    FROM rt_documents WHERE rt_device_id = $1 AND fiscal_day = $2 ORDER BY progressive`;

const PREVIOUS_CLOSURE = `SELECT max(closed_at) AS closed_at FROM rt_daily_closures WHERE rt_device_id = $1`;

/** The next day is open: numbering restarts at <day + 1>-0001 (reference §1). */
const OPEN_NEXT_DAY = `UPDATE rt_devices SET fiscal_day = $2, progressive = 0, transmission_progressive = $3 WHERE id = $1`;

const INSERT_CLOSURE = `
  INSERT INTO rt_daily_closures (id, merchant_id, register_id, rt_device_id, fiscal_day, closed_at, document_count, totals,
                                 paid_cash, paid_electronic, cor10, transmission_status)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12)`;

/** The transmission is a queue row written with the closure: a crash after the commit loses nothing. */
const ENQUEUE_TRANSMISSION = `INSERT INTO rt_transmission_jobs (id, closure_id, status) VALUES ($1, $2, 'pending')`;

interface ClosingDevice extends RtDeviceRow {
  merchant_id: string;
  register_id: string;
  transmission_progressive: number;
  certificate: string | null;
  sealed_private_key: string | null;
  created_at: Date;
  device_simulation: DeviceSimulation;
}

export type ClosureDependencies = FiscalDependencies & DeviceOptions;

/**
 * The daily closure (Z report) of the RT `deviceId`, inside the caller's
 * transaction (DESIGN "Italy: RT"): the driver closes the day on the device,
 * the day's documents are totalled, the closure is stored with its COR10 and
 * the next day opens. The simulator's COR10 is signed with its sandbox
 * certificate and queued for transmission; a printer transmits its own, so
 * its closure records no file and nothing to send. In the sandbox the
 * register's device simulation fails the closure as it fails documents.
 * Returns the closure's id.
 */
export async function closeRtDay(sql: SqlClient, deps: ClosureDependencies, deviceId: string): Promise<string> {
  const [device] = await sql.query<ClosingDevice>(LOCK_DEVICE, [deviceId]);
  if (!device || device.status !== 'active') throw new FiscalDeviceError(1, 'inactive', 'The RT device is out of service');
  const driver = rtDriverFor(device, deps);
  const exchange: DeviceExchange = (phase, call) => withDeviceTimeout(phase, deps.deviceTimeoutMs, sql, call);
  const simulation = deps.environment === 'sandbox' ? device.device_simulation : 'ok';
  const closure =
    simulation === 'ok' ? await driver.closeDay(exchange) : await withSimulatedFault(simulation, exchange, () => driver.closeDay(exchange));
  const documents = await sql.query<{ kind: 'sale' | 'return'; totals: RtJournaledDocument['totals']; paid_cash: string; paid_electronic: string }>(
    DAY_DOCUMENTS,
    [deviceId, closure.fiscalDay],
  );
  const totals = rtDayTotals(documents.map((row) => ({ kind: row.kind, totals: row.totals, paidCash: row.paid_cash, paidElectronic: row.paid_electronic })));
  const [previous] = await sql.query<{ closed_at: Date | null }>(PREVIOUS_CLOSURE, [deviceId]);
  const transmissionProgressive = closure.transmittedByDevice ? device.transmission_progressive : device.transmission_progressive + 1;
  const cor10 = closure.transmittedByDevice
    ? null
    : signCor10(
        buildCor10({
          transmissionProgressive,
          closedAt: closure.closedAt,
          openedAt: previous?.closed_at ?? device.created_at,
          totals,
          simulation: deps.environment === 'sandbox',
        }),
        { certificatePem: device.certificate!, privateKeyPem: deps.secrets.open(device.sealed_private_key!) },
      );
  const id = newId('dcl');
  await sql.query(OPEN_NEXT_DAY, [deviceId, closure.fiscalDay + 1, transmissionProgressive]);
  await sql.query(RECORD_FISCAL_DAY, [device.register_id, closure.fiscalDay + 1]);
  await sql.query(INSERT_CLOSURE, [
    id,
    device.merchant_id,
    device.register_id,
    deviceId,
    closure.fiscalDay,
    closure.closedAt,
    totals.documentCount,
    JSON.stringify(totals.totals),
    totals.paidCash,
    totals.paidElectronic,
    cor10,
    // The printer's own transmission is out of the service's sight: it was handed to the device.
    closure.transmittedByDevice ? 'transmitted' : 'pending',
  ]);
  if (!closure.transmittedByDevice) await sql.query(ENQUEUE_TRANSMISSION, [newId('rtx'), id]);
  return id;
}
