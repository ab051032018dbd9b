import type { SqlClient } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { FiscalPreconditionError, type DeviceIdentity, type DeviceOptions, type FiscalDependencies } from '../../fiscalDevice.js';
import { assertPrintableString } from '../transactionLog.js';
import { isTseSignatureAlgorithm, publicKeyObjectFromPoint } from '../tseKeys.js';
import type { CallBudget } from '../../callBudget.js';
import { FiskalyApiError, FiskalyClient } from './client.js';
import { keepFiskalyClient } from './clients.js';
import { connectionOf, sealConnection, type FiskalySignDeOptions } from './connection.js';

/** What `GET /tss/{tss_id}` answers that the driver needs. */
interface FiskalyTss {
  state?: string;
  serial_number?: string;
  public_key?: string;
  signature_algorithm?: string;
  signature_timestamp_format?: string;
  bsi_certification_id?: string;
}

/** What `GET /tss/{tss_id}/client/{client_id}` answers that the driver needs. */
interface FiskalyTssClient {
  state?: string;
  serial_number?: string;
}

/** The register's `fiscalization.tse` block for the driver: public identifiers only. */
export interface FiskalySignDeFiscalization {
  driver: 'fiskaly_sign_de';
  tss_id: string;
  client_id: string;
  serial: string;
  signature_algorithm: string;
  public_key: string;
  /** The BSI certification id the TSS reports, for the § 146a (4) AO notification. */
  bsi_certification_id?: string;
}

/** A TSS already attached to a register: the same TSE row serves every register of its merchant that uses it. */
const FIND_TSE = `SELECT id, merchant_id, driver, status FROM tse_devices WHERE serial_number = $1 FOR UPDATE`;

const INSERT_TSE = `
  INSERT INTO tse_devices (id, merchant_id, serial_number, public_key, algorithm, status, driver, connection_enc)
  VALUES ($1, $2, $3, $4, $5, 'active', 'fiskaly_sign_de', $6)`;

/** New credentials of the same TSS (a rotated API key) replace the old ones for all its registers. */
const UPDATE_CONNECTION = `UPDATE tse_devices SET connection_enc = $2 WHERE id = $1`;

const CLIENT_IN_USE = `
  SELECT id FROM registers WHERE device_id = $1 AND client_id = $2 AND fiscalization_status IN ('fiscalized', 'pending') LIMIT 1`;

/** The field of the fiscalize body a failed call points at. */
function refusal(error: unknown, field: string, what: string): FiscalPreconditionError {
  if (error instanceof FiskalyApiError) {
    const blamed = error.kind === 'unauthorized' ? 'tse.api_key' : error.kind === 'rejected' ? field : 'tse.base_url';
    return new FiscalPreconditionError(`fiskaly refused ${what}: ${error.message}`, {
      field: blamed,
      reason: error.kind,
      vendor_code: error.code,
      vendor_status: error.status,
    });
  }
  return new FiscalPreconditionError(`fiskaly did not answer ${what} in time`, { field: 'tse.base_url', reason: 'timeout', vendor_code: null });
}

async function read<T>(client: FiskalyClient, path: string, budget: CallBudget, field: string, what: string): Promise<T> {
  try {
    return await client.call<T>('GET', path, undefined, budget);
  } catch (error) {
    throw refusal(error, field, what);
  }
}

/**
 * Attaches a register to a fiskaly TSS (DESIGN "Production drivers"): the
 * credentials must get a token, the TSS must be INITIALIZED and sign in a form
 * the receipt QR code can carry, and the client must be REGISTERED. Its serial
 * number becomes the register's TR-03151 client id. Anything else is refused
 * naming the field, before anything is written.
 */
export async function provisionFiskalyTse(
  sql: SqlClient,
  deps: FiscalDependencies & DeviceOptions,
  merchantId: string,
  options: FiskalySignDeOptions,
): Promise<DeviceIdentity> {
  const connection = connectionOf(options);
  const client = new FiskalyClient(connection);
  const budget: CallBudget = { signal: AbortSignal.timeout(deps.deviceTimeoutMs), deadline: Date.now() + deps.deviceTimeoutMs };
  const tssPath = `/tss/${encodeURIComponent(options.tss_id)}`;
  const tss = await read<FiskalyTss>(client, tssPath, budget, 'tse.tss_id', 'the TSS');
  if (tss.state !== 'INITIALIZED') {
    throw new FiscalPreconditionError(`The TSS is ${tss.state ?? 'in an unknown state'}, not INITIALIZED; initialise it in the fiskaly dashboard`, {
      field: 'tse.tss_id',
      tss_state: tss.state ?? null,
    });
  }
  const algorithm = tss.signature_algorithm ?? '';
  if (!isTseSignatureAlgorithm(algorithm) || (tss.signature_timestamp_format ?? 'unixTime') !== 'unixTime') {
    throw new FiscalPreconditionError(`The TSS signs with ${algorithm || 'no named algorithm'} in ${tss.signature_timestamp_format}; the receipt QR code needs ecdsa-plain-SHA256/384 in unixTime`, {
      field: 'tse.tss_id',
    });
  }
  const publicKey = Buffer.from(tss.public_key ?? '', 'base64');
  try {
    publicKeyObjectFromPoint(publicKey);
  } catch {
    throw new FiscalPreconditionError('The TSS reports no usable public key (an uncompressed P-256 or P-384 point)', { field: 'tse.tss_id' });
  }
  if (!tss.serial_number) throw new FiscalPreconditionError('The TSS reports no serial number', { field: 'tse.tss_id' });
  const tssClient = await read<FiskalyTssClient>(client, `${tssPath}/client/${encodeURIComponent(options.client_id)}`, budget, 'tse.client_id', 'the client');
  if (tssClient.state !== 'REGISTERED') {
    throw new FiscalPreconditionError(`The client is ${tssClient.state ?? 'in an unknown state'}, not REGISTERED at the TSS`, {
      field: 'tse.client_id',
      client_state: tssClient.state ?? null,
    });
  }
  const clientId = tssClient.serial_number ?? '';
  try {
    if (!clientId) throw new TypeError('empty');
    assertPrintableString(clientId, 'client serial_number');
  } catch {
    throw new FiscalPreconditionError('The client\'s serial_number is no TR-03151 client id (PrintableString characters only)', { field: 'tse.client_id' });
  }

  const serial = tss.serial_number.toLowerCase();
  const sealed = sealConnection(deps.secrets, connection);
  const [known] = await sql.query<{ id: string; merchant_id: string; driver: string; status: string }>(FIND_TSE, [serial]);
  let deviceId: string;
  if (known) {
    if (known.merchant_id !== merchantId || known.driver !== 'fiskaly_sign_de' || known.status !== 'active') {
      throw new FiscalPreconditionError('The TSS is in use elsewhere or out of service', { field: 'tse.tss_id' });
    }
    const [inUse] = await sql.query(CLIENT_IN_USE, [known.id, clientId]);
    if (inUse) throw new FiscalPreconditionError('Another register already uses this client of the TSS', { field: 'tse.client_id' });
    deviceId = known.id;
    await sql.query(UPDATE_CONNECTION, [deviceId, sealed]);
  } else {
    deviceId = newId('tse');
    await sql.query(INSERT_TSE, [deviceId, merchantId, serial, publicKey.toString('base64'), algorithm, sealed]);
  }
  keepFiskalyClient(sealed, client);
  const fiscalization: FiskalySignDeFiscalization = {
    driver: 'fiskaly_sign_de',
    tss_id: options.tss_id,
    client_id: options.client_id,
    serial,
    signature_algorithm: algorithm,
    public_key: publicKey.toString('base64'),
    ...(tss.bsi_certification_id ? { bsi_certification_id: tss.bsi_certification_id } : {}),
  };
  return { deviceId, serial, clientId, details: { ...fiscalization } };
}
