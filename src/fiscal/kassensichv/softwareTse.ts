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

interface AdvancedTse {
  transaction_counter: string;
  signature_counter: string;
  serial_number: string;
  public_key: string;
  private_key_enc: string;
  algorithm: string;
}

/**
 * One transaction: the transaction counter +1 and the signature counter +2 (start
 * and finish log) in one UPDATE on the device row, which locks it, so concurrent
 * signers take strictly consecutive numbers; the key comes back with the counters.
 */
const ADVANCE_FOR_TRANSACTION = `
  UPDATE tse_devices
     SET transaction_counter = transaction_counter + 1, signature_counter = signature_counter + 2
   WHERE id = $1 AND status = 'active'
  RETURNING transaction_counter::text AS transaction_counter, signature_counter::text AS signature_counter,
            serial_number, public_key, private_key_enc, algorithm`;

/** Why the log row below may fail to be written. */
const COUNTERS_MOVED = 'The TSE counters moved while the transaction was logged';

/**
 * The log row is written only while the device row holds the counters it was signed
 * with, which in a live transaction it does (the counter UPDATE locked it). Any other
 * time it writes nothing and fails, with its transaction, so the log can never run
 * ahead of the counters. Sent pipelined (SqlClient.write) with what follows.
 */
const INSERT_TRANSACTION = `
  WITH written AS (
    INSERT INTO tse_transactions (id, tse_id, client_id, transaction_number, state,
                                  start_signature_counter, start_log_time, start_signature,
                                  finish_signature_counter, finish_log_time, finish_signature, process_type, process_data)
    SELECT $1, d.id, $3, $4::bigint, 'finished', $5::bigint, $6::timestamptz, $7, $8::bigint, $9::timestamptz, $10, $11, $12
      FROM tse_devices d
     WHERE d.id = $2 AND d.transaction_counter = $4::bigint AND d.signature_counter = $8::bigint
    RETURNING 1)
  SELECT ${assertWritten(COUNTERS_MOVED)}`;

/**
 * A software TSE after BSI TR-03151: every log is signed with ECDSA (plain
 * format), its counters and logs live in the service's database, and a whole
 * transaction (StartTransaction and FinishTransaction) is one exchange: one
 * counter update and one log row in the caller's transaction.
 */
export class SoftwareTse implements Tse {
  constructor(
    private readonly id: string,
    private readonly secrets: SecretBox,
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
      const [row] = await sql.query<AdvancedTse>(ADVANCE_FOR_TRANSACTION, [this.id]);
      if (!row) throw new FiscalDeviceError(1, 'inactive', 'The TSE is not active');
      signal.throwIfAborted();
      const tse: TseIdentity = {
        serialNumber: row.serial_number,
        publicKey: row.public_key,
        algorithm: row.algorithm as TseSignatureAlgorithm,
      };
      const key = this.privateKey(row.private_key_enc);
      const transactionNumber = Number(row.transaction_counter);
      const finishCounter = Number(row.signature_counter);
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
      await sql.write(INSERT_TRANSACTION, transactionRowParameters(this.id, request.clientId, start, finish));
      return { tse, start, finish };
    });
  }
}
