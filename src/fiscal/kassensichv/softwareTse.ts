import { createPrivateKey, randomBytes, scryptSync, type KeyObject } from 'node:crypto';
import type { TseDevice } from '../../db/generated/client.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secretBox.js';
import type { Tx } from '../../modules/common/transactions.js';
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

/**
 * A software TSE after BSI TR-03151: every log is signed with ECDSA (plain
 * format); the transaction counter grows on StartTransaction and the signature
 * counter on every log, both in one UPDATE on the device row, which locks it so
 * concurrent signers take strictly consecutive numbers.
 */
export class SoftwareTse implements KassenSichVDevice {
  constructor(
    private readonly record: TseDevice,
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

  async startTransaction(tx: Tx, clientId: string): Promise<TseLogEntry> {
    const rows = await tx.$queryRaw<{ transaction_counter: bigint; signature_counter: bigint }[]>`
      UPDATE tse_devices
         SET transaction_counter = transaction_counter + 1, signature_counter = signature_counter + 1
       WHERE id = ${this.record.id} AND status = 'active'
      RETURNING transaction_counter, signature_counter`;
    if (!rows.length) throw new FiscalDeviceError(1, 'inactive', 'The TSE is not active');
    const entry = this.sign('StartTransaction', clientId, Number(rows[0].transaction_counter), Number(rows[0].signature_counter), '', '');
    await tx.tseTransaction.create({
      data: {
        id: newId('ttx'),
        tseId: this.record.id,
        clientId,
        transactionNumber: entry.transactionNumber,
        state: 'started',
        startSignatureCounter: entry.signatureCounter,
        startLogTime: entry.logTime,
        startSignature: entry.signature,
      },
    });
    return entry;
  }

  /** Start and finish in one counter update: the start log takes n-1, the finish log n. */
  async signTransaction(
    tx: Tx,
    request: { clientId: string; processType: string; processData: string },
  ): Promise<{ start: TseLogEntry; finish: TseLogEntry }> {
    const rows = await tx.$queryRaw<{ transaction_counter: bigint; signature_counter: bigint }[]>`
      UPDATE tse_devices
         SET transaction_counter = transaction_counter + 1, signature_counter = signature_counter + 2
       WHERE id = ${this.record.id} AND status = 'active'
      RETURNING transaction_counter, signature_counter`;
    if (!rows.length) throw new FiscalDeviceError(1, 'inactive', 'The TSE is not active');
    const transactionNumber = Number(rows[0].transaction_counter);
    const finishCounter = Number(rows[0].signature_counter);
    const start = this.sign('StartTransaction', request.clientId, transactionNumber, finishCounter - 1, '', '');
    const finish = this.sign('FinishTransaction', request.clientId, transactionNumber, finishCounter, request.processType, request.processData);
    await tx.tseTransaction.create({
      data: {
        id: newId('ttx'),
        tseId: this.record.id,
        clientId: request.clientId,
        transactionNumber,
        state: 'finished',
        startSignatureCounter: start.signatureCounter,
        startLogTime: start.logTime,
        startSignature: start.signature,
        finishSignatureCounter: finish.signatureCounter,
        finishLogTime: finish.logTime,
        finishSignature: finish.signature,
        processType: finish.processType,
        processData: finish.processData,
      },
    });
    return { start, finish };
  }

  async finishTransaction(
    tx: Tx,
    request: { clientId: string; transactionNumber: number; processType: string; processData: string },
  ): Promise<TseLogEntry> {
    const open = await tx.tseTransaction.findUnique({
      where: { tseId_transactionNumber: { tseId: this.record.id, transactionNumber: request.transactionNumber } },
    });
    if (!open || open.state !== 'started' || open.clientId !== request.clientId) {
      throw new FiscalDeviceError(2, 'rejected', `Transaction ${request.transactionNumber} is not open for this client`);
    }
    const rows = await tx.$queryRaw<{ signature_counter: bigint }[]>`
      UPDATE tse_devices SET signature_counter = signature_counter + 1
       WHERE id = ${this.record.id} AND status = 'active'
      RETURNING signature_counter`;
    if (!rows.length) throw new FiscalDeviceError(2, 'inactive', 'The TSE is not active');
    const entry = this.sign(
      'FinishTransaction',
      request.clientId,
      request.transactionNumber,
      Number(rows[0].signature_counter),
      request.processType,
      request.processData,
    );
    await tx.tseTransaction.update({
      where: { id: open.id },
      data: {
        state: 'finished',
        finishSignatureCounter: entry.signatureCounter,
        finishLogTime: entry.logTime,
        finishSignature: entry.signature,
        processType: entry.processType,
        processData: entry.processData,
      },
    });
    return entry;
  }
}
