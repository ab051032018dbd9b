import { createPrivateKey, randomBytes, scryptSync, type KeyObject } from 'node:crypto';
import type { TseDevice } from '../../db/generated/client.js';
import type { SqlClient } from '../../db/sql.js';
import type { Tx } from '../../db/transaction.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secretBox.js';
import { FiscalDeviceError } from '../deviceErrors.js';
import type { KassenSichVDevice, TseIdentity, TseLogEntry } from './device.js';
import { signTransactionLog, type TransactionOperationType } from './transactionLog.js';
import { generateTseKeyMaterial, type TseSignatureAlgorithm } from './tseKeys.js';

// Parsing a PEM costs far more than signing; keys never change, so keep the parsed ones.
const privateKeys = new Map<string, KeyObject>();

/** The TSE's log time: whole seconds, as the unixTime in the signed log carries them. */
const tseNow = (): Date => new Date(Math.floor(Date.now() / 1000) * 1000);

export interface ProvisionedTse {
  device: TseDevice;
  /** Shown once to the operator; only its hash is stored. */
  adminPin: string;
}

export function hashAdminPin(pin: string, salt: string): string {
  return `${salt}:${scryptSync(pin, salt, 32).toString('hex')}`;
}

/** Creates a software TSE: a fresh key pair (private key sealed at rest) and zeroed counters. */
export async function provisionSoftwareTse(
  tx: Tx,
  secrets: SecretBox,
  merchantId: string,
  algorithm: TseSignatureAlgorithm = 'ecdsa-plain-SHA256',
): Promise<ProvisionedTse> {
  const keys = generateTseKeyMaterial(algorithm);
  const adminPin = randomBytes(4).readUInt32BE().toString().padStart(10, '0').slice(-8);
  const device = await tx.tseDevice.create({
    data: {
      id: newId('tse'),
      merchantId,
      serialNumber: keys.serialNumber,
      publicKey: keys.publicKey.toString('base64'),
      privateKeyEnc: secrets.seal(keys.privateKeyPem),
      algorithm: keys.algorithm,
      adminPinHash: hashAdminPin(adminPin, randomBytes(16).toString('hex')),
      status: 'active',
    },
  });
  return { device, adminPin };
}

/** What signing needs of a TSE's stored record. */
export type TseKeyRecord = Pick<TseDevice, 'id' | 'serialNumber' | 'publicKey' | 'privateKeyEnc' | 'algorithm'>;

interface Counters {
  transaction_counter: string;
  signature_counter: string;
}

/**
 * The log row is written only while the device row holds the counters it was signed
 * with, which in a live transaction it does (the counter UPDATE locked it). Any other
 * time (a statement that outlived its rollback) it writes nothing, so the log can
 * never run ahead of the counters.
 */
const INSERT_TRANSACTION = `
  INSERT INTO tse_transactions (id, tse_id, client_id, transaction_number, state,
                                start_signature_counter, start_log_time, start_signature,
                                finish_signature_counter, finish_log_time, finish_signature, process_type, process_data)
  SELECT $1, d.id, $3, $4::bigint, $5, $6::bigint, $7::timestamptz, $8, $9::bigint, $10::timestamptz, $11, $12, $13
    FROM tse_devices d
   WHERE d.id = $2 AND d.transaction_counter = $4::bigint AND d.signature_counter = $14::bigint
  RETURNING id`;

const FINISH_TRANSACTION = `
  UPDATE tse_transactions t
     SET state = 'finished', finish_signature_counter = $2, finish_log_time = $3, finish_signature = $4,
         process_type = $5, process_data = $6
    FROM tse_devices d
   WHERE t.id = $1 AND t.state = 'started' AND d.id = t.tse_id AND d.signature_counter = $2
  RETURNING t.id`;

/**
 * A software TSE after BSI TR-03151: every log is signed with ECDSA (plain
 * format); the transaction counter grows on StartTransaction and the signature
 * counter on every log, both in one UPDATE on the device row, which locks it so
 * concurrent signers take strictly consecutive numbers.
 */
export class SoftwareTse implements KassenSichVDevice {
  constructor(
    private readonly record: TseKeyRecord,
    private readonly secrets: SecretBox,
  ) {}

  identity(): TseIdentity {
    return {
      serialNumber: this.record.serialNumber,
      publicKey: this.record.publicKey,
      algorithm: this.record.algorithm as TseSignatureAlgorithm,
    };
  }

  private privateKey(): KeyObject {
    let key = privateKeys.get(this.record.id);
    if (!key) {
      key = createPrivateKey(this.secrets.open(this.record.privateKeyEnc));
      privateKeys.set(this.record.id, key);
    }
    return key;
  }

  private sign(
    operationType: TransactionOperationType,
    clientId: string,
    transactionNumber: number,
    signatureCounter: number,
    processType: string,
    processData: string,
  ): TseLogEntry {
    const logTime = tseNow();
    const signed = signTransactionLog(
      {
        operationType,
        clientId,
        processType,
        processData,
        transactionNumber,
        signatureCounter,
        logTime,
        serialNumber: this.record.serialNumber,
        algorithm: this.record.algorithm as TseSignatureAlgorithm,
      },
      this.privateKey(),
    );
    return { transactionNumber, signatureCounter, logTime, signature: signed.signature.toString('base64'), processType, processData };
  }

  /** Advances the counters of an active device; the row stays locked until the caller's transaction ends. */
  private async advance(sql: SqlClient, phase: 1 | 2, transactions: 0 | 1, signatures: 1 | 2): Promise<{ transaction: number; signature: number }> {
    const [row] = await sql.query<Counters>(
      `UPDATE tse_devices
          SET transaction_counter = transaction_counter + $2::int, signature_counter = signature_counter + $3::int
        WHERE id = $1 AND status = 'active'
       RETURNING transaction_counter::text AS transaction_counter, signature_counter::text AS signature_counter`,
      [this.record.id, transactions, signatures],
    );
    if (!row) throw new FiscalDeviceError(phase, 'inactive', 'The TSE is not active');
    return { transaction: Number(row.transaction_counter), signature: Number(row.signature_counter) };
  }

  private async store(sql: SqlClient, clientId: string, start: TseLogEntry, finish: TseLogEntry | null): Promise<void> {
    const latest = finish ?? start;
    const stored = await sql.query(INSERT_TRANSACTION, [
      newId('ttx'),
      this.record.id,
      clientId,
      start.transactionNumber,
      finish ? 'finished' : 'started',
      start.signatureCounter,
      start.logTime,
      start.signature,
      finish?.signatureCounter ?? null,
      finish?.logTime ?? null,
      finish?.signature ?? null,
      finish?.processType ?? null,
      finish?.processData ?? null,
      latest.signatureCounter,
    ]);
    if (!stored.length) throw new FiscalDeviceError(1, 'rejected', 'The TSE counters moved while the transaction was logged');
  }

  async startTransaction(sql: SqlClient, clientId: string, signal?: AbortSignal): Promise<TseLogEntry> {
    const counters = await this.advance(sql, 1, 1, 1);
    signal?.throwIfAborted();
    const entry = this.sign('StartTransaction', clientId, counters.transaction, counters.signature, '', '');
    await this.store(sql, clientId, entry, null);
    return entry;
  }

  /** Start and finish in one counter update: the start log takes n-1, the finish log n. */
  async signTransaction(
    sql: SqlClient,
    request: { clientId: string; processType: string; processData: string },
    signal?: AbortSignal,
  ): Promise<{ start: TseLogEntry; finish: TseLogEntry }> {
    const counters = await this.advance(sql, 1, 1, 2);
    signal?.throwIfAborted();
    const start = this.sign('StartTransaction', request.clientId, counters.transaction, counters.signature - 1, '', '');
    const finish = this.sign('FinishTransaction', request.clientId, counters.transaction, counters.signature, request.processType, request.processData);
    await this.store(sql, request.clientId, start, finish);
    return { start, finish };
  }

  async finishTransaction(
    sql: SqlClient,
    request: { clientId: string; transactionNumber: number; processType: string; processData: string },
    signal?: AbortSignal,
  ): Promise<TseLogEntry> {
    const [open] = await sql.query<{ id: string; state: string; client_id: string }>(
      `SELECT id, state, client_id FROM tse_transactions WHERE tse_id = $1 AND transaction_number = $2`,
      [this.record.id, request.transactionNumber],
    );
    if (!open || open.state !== 'started' || open.client_id !== request.clientId) {
      throw new FiscalDeviceError(2, 'rejected', `Transaction ${request.transactionNumber} is not open for this client`);
    }
    const counters = await this.advance(sql, 2, 0, 1);
    signal?.throwIfAborted();
    const entry = this.sign(
      'FinishTransaction',
      request.clientId,
      request.transactionNumber,
      counters.signature,
      request.processType,
      request.processData,
    );
    const finished = await sql.query(FINISH_TRANSACTION, [
      open.id,
      entry.signatureCounter,
      entry.logTime,
      entry.signature,
      entry.processType,
      entry.processData,
    ]);
    if (!finished.length) throw new FiscalDeviceError(2, 'rejected', 'The TSE counters moved while the transaction was logged');
    return entry;
  }
}
