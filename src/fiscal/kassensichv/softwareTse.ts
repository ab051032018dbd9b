import { createPrivateKey, randomBytes, scryptSync, type KeyObject } from 'node:crypto';
import { assertWritten, type SqlClient } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secretBox.js';
import { FiscalDeviceError } from '../deviceErrors.js';
import type { DeviceExchange } from '../fiscalDevice.js';
import type { SignedTseTransaction, Tse, TseIdentity, TseLogEntry, TseTransactionRequest } from './device.js';
import { issueTseCertificates } from './tseCertificates.js';
import { transactionRowParameters } from './transactionRow.js';
import { signTransactionLog, type TransactionOperationType } from './transactionLog.js';
import { generateTseKeyMaterial, type TseSignatureAlgorithm } from './tseKeys.js';

// Parsing a PEM costs far more than signing; keys never change, so keep the parsed ones.
const privateKeys = new Map<string, KeyObject>();

/** The TSE's log time: whole seconds, as the unixTime in the signed log carries them. */
const tseNow = (): Date => new Date(Math.floor(Date.now() / 1000) * 1000);

/** What a StartTransaction log carries: the process is known only at finish, so both are empty (the stored row keeps the finish's). */
export const START_TRANSACTION_PROCESS = { processType: '', processData: '' } as const;

export interface ProvisionedTse {
  id: string;
  serialNumber: string;
  algorithm: TseSignatureAlgorithm;
  /** Shown once to the operator; only its hash is stored. */
  adminPin: string;
}

export function hashAdminPin(pin: string, salt: string): string {
  return `${salt}:${scryptSync(pin, salt, 32).toString('hex')}`;
}

/** Creates a software TSE: a fresh key pair (private key sealed at rest), its certificate chain and zeroed counters. */
export async function provisionSoftwareTse(
  sql: SqlClient,
  secrets: SecretBox,
  merchantId: string,
  algorithm: TseSignatureAlgorithm = 'ecdsa-plain-SHA256',
): Promise<ProvisionedTse> {
  const keys = generateTseKeyMaterial(algorithm);
  const certificates = await issueTseCertificates(keys, tseNow());
  const adminPin = randomBytes(4).readUInt32BE().toString().padStart(10, '0').slice(-8);
  const id = newId('tse');
  await sql.query(
    `INSERT INTO tse_devices (id, merchant_id, serial_number, public_key, private_key_enc, algorithm, admin_pin_hash, certificate, root_certificate, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'active')`,
    [
      id,
      merchantId,
      keys.serialNumber,
      keys.publicKey.toString('base64'),
      secrets.seal(keys.privateKeyPem),
      keys.algorithm,
      hashAdminPin(adminPin, randomBytes(16).toString('hex')),
      certificates.certificate,
      certificates.rootCertificate,
    ],
  );
  return { id, serialNumber: keys.serialNumber, algorithm: keys.algorithm, adminPin };
}

/** The software TSE's row as it signs from it (FiscalRegister.lockedDeviceState). */
export interface TseState {
  transaction_counter: string;
  signature_counter: string;
  serial_number: string;
  public_key: string;
  private_key_enc: string;
  algorithm: string;
  status: string;
}

/** The row `d` as a TseState, one json value, the form the completion's lock reads it in too. */
const TSE_STATE = `json_build_object(
  'transaction_counter', d.transaction_counter::text, 'signature_counter', d.signature_counter::text,
  'serial_number', d.serial_number, 'public_key', d.public_key, 'private_key_enc', d.private_key_enc,
  'algorithm', d.algorithm, 'status', d.status) AS device_state`;

/**
 * The software TSE of the KassenSichV register `register` (an alias of a registers row), locked
 * unless another transaction holds it (FiscalRegime.lockedDeviceStateSql).
 */
export const lockedSoftwareTseOf = (register: string) => `
  SELECT ${TSE_STATE} FROM tse_devices d
   WHERE d.id = ${register}.device_id AND ${register}.regime = 'KassenSichV' AND d.driver = 'software'
     FOR UPDATE SKIP LOCKED`;

/** The device row, locked: concurrent signers wait for each other here and take strictly consecutive numbers. */
const LOCK_TSE = `SELECT ${TSE_STATE} FROM tse_devices d WHERE d.id = $1 FOR UPDATE`;

/** Why the transaction below may fail to be written. */
const COUNTERS_MOVED = 'The TSE counters moved while the transaction was logged';

/**
 * One transaction on the device: its counters move from what the signer read ($13, $14) to the
 * transaction's number and the finish log's counter, and its log row is written from them. The
 * device row is locked by the signer's transaction, so it still holds what was read; if it did
 * not, nothing is written and the statement fails, with its transaction, so the log can never
 * run ahead of the counters. Sent pipelined (SqlClient.write) with what follows.
 */
const RECORD_TRANSACTION = `
  WITH advanced AS (
    UPDATE tse_devices SET transaction_counter = $4::bigint, signature_counter = $8::bigint
     WHERE id = $2 AND transaction_counter = $13::bigint AND signature_counter = $14::bigint
    RETURNING id),
  written AS (
    INSERT INTO tse_transactions (id, tse_id, client_id, transaction_number, state,
                                  start_signature_counter, start_log_time, start_signature,
                                  finish_signature_counter, finish_log_time, finish_signature, process_type, process_data)
    SELECT $1, advanced.id, $3, $4::bigint, 'finished', $5::bigint, $6::timestamptz, $7, $8::bigint, $9::timestamptz, $10, $11, $12
      FROM advanced
    RETURNING 1)
  SELECT ${assertWritten(COUNTERS_MOVED)}`;

/**
 * A software TSE after BSI TR-03151: every log is signed with ECDSA (plain
 * format), its counters and logs live in the service's database, and a whole
 * transaction (StartTransaction and FinishTransaction) is one exchange in the
 * caller's transaction: the device row locked (by the caller's read when it
 * passes `locked`), then one write of the counters and the log row.
 */
export class SoftwareTse implements Tse {
  constructor(
    private readonly id: string,
    private readonly secrets: SecretBox,
    /** The device row as the caller's transaction already locked it; used by the first transaction only. */
    private locked: TseState | null = null,
  ) {}

  private privateKey(sealed: string): KeyObject {
    let key = privateKeys.get(this.id);
    if (!key) {
      key = createPrivateKey(this.secrets.open(sealed));
      privateKeys.set(this.id, key);
    }
    return key;
  }

  transact(
    exchange: DeviceExchange,
    request: TseTransactionRequest,
  ): Promise<SignedTseTransaction> {
    return exchange(1, async (sql, signal) => {
      const locked = this.locked;
      this.locked = null;
      const row = locked ?? (await sql.query<{ device_state: TseState }>(LOCK_TSE, [this.id]))[0]?.device_state;
      if (row?.status !== 'active') throw new FiscalDeviceError(1, 'inactive', 'The TSE is not active');
      signal.throwIfAborted();
      const tse: TseIdentity = {
        serialNumber: row.serial_number,
        publicKey: row.public_key,
        algorithm: row.algorithm as TseSignatureAlgorithm,
      };
      const key = this.privateKey(row.private_key_enc);
      // A transaction takes the next number; its start and finish logs take the next two signature counters.
      const transactionNumber = Number(row.transaction_counter) + 1;
      const finishCounter = Number(row.signature_counter) + 2;
      const log = (operationType: TransactionOperationType, signatureCounter: number, processType: string, processData: string): TseLogEntry => {
        const logTime = tseNow();
        const signed = signTransactionLog(
          { operationType, clientId: request.clientId, processType, processData, transactionNumber, signatureCounter, logTime, serialNumber: tse.serialNumber, algorithm: tse.algorithm },
          key,
        );
        return { transactionNumber, signatureCounter, logTime, signature: signed.signature.toString('base64'), processType, processData };
      };
      const start = log('StartTransaction', finishCounter - 1, START_TRANSACTION_PROCESS.processType, START_TRANSACTION_PROCESS.processData);
      const finish = log('FinishTransaction', finishCounter, request.processType, request.processData);
      await sql.write(RECORD_TRANSACTION, [...transactionRowParameters(this.id, request.clientId, start, finish), row.transaction_counter, row.signature_counter]);
      return { tse, start, finish };
    });
  }
}
