import type { SqlClient } from '../../../db/sql.js';
import type { SecretBox } from '../../../lib/secretBox.js';
import { FiscalDeviceError } from '../../deviceErrors.js';
import type { DeviceExchange } from '../../fiscalDevice.js';
import type { SignedTseTransaction, Tse, TseIdentity, TseTransactionRequest } from '../device.js';
import { transactionRowParameters } from '../transactionRow.js';
import type { TseSignatureAlgorithm } from '../tseKeys.js';
import { budgetOf, type CallBudget } from '../../callBudget.js';
import { FiskalyApiError, type FiskalyClient } from './client.js';
import { fiskalyClientFor } from './clients.js';
import { deviceErrorOf } from './deviceFaults.js';
import { identityOf, latestRevisionOf, logEntryOf, revisionOf, type FiskalyTransaction } from './fiskalyTransaction.js';
import { transactionIdOf } from './transactionId.js';

const LOAD_DEVICE = `
  SELECT status, serial_number, public_key, algorithm, connection_enc FROM tse_devices WHERE id = $1`;

/** The signed transaction, as the software TSE records its own: the TAR export and DSFinV-K read it from here. */
const INSERT_TRANSACTION = `
  INSERT INTO tse_transactions (id, tse_id, client_id, transaction_number, state,
                                start_signature_counter, start_log_time, start_signature,
                                finish_signature_counter, finish_log_time, finish_signature, process_type, process_data)
  VALUES ($1, $2, $3, $4::bigint, 'finished', $5::bigint, $6::timestamptz, $7, $8::bigint, $9::timestamptz, $10, $11, $12)`;

/** How many of one record's transactions may have been cancelled before the driver stops starting new ones. */
const MAX_TRANSACTIONS_PER_RECORD = 8;

interface TseRow {
  status: string;
  serial_number: string;
  public_key: string;
  algorithm: string;
  connection_enc: string | null;
}

interface RemoteTse {
  identity: TseIdentity;
  client: FiskalyClient;
  tssId: string;
}

/** Where the record's transaction stands at fiskaly after phase 1. */
type Begun =
  | { kind: 'active'; txId: string; start: FiskalyTransaction; nextRevision: number }
  /** An earlier attempt finished it (its answer or its database transaction was lost): its signature is the record's. */
  | { kind: 'finished'; txId: string; finish: FiskalyTransaction };

/** A failure after which the transaction may stand at fiskaly though its answer never came. */
const mayHaveStarted = (error: unknown) => error instanceof FiscalDeviceError && (error.reason === 'unreachable' || error.reason === 'timeout');

/**
 * A certified cloud TSE, fiskaly SIGN DE v2 (DESIGN "Production drivers"):
 * StartTransaction is phase 1 (`PUT .../tx/{tx_id}?tx_revision=1`, state
 * ACTIVE), FinishTransaction phase 2 (the next revision, state FINISHED, the
 * processData as the `raw` schema so that the QR code is over what is signed).
 * The tx_id is derived from the record (transactionId.ts): an attempt that
 * finds the record's transaction finished takes its signature, one that finds
 * it still active finishes it. A transaction that failed after it may have
 * started is cancelled before the error returns; when even that cannot reach
 * fiskaly, the next attempt at the record finishes or replaces it.
 */
export class FiskalySignDeTse implements Tse {
  constructor(
    private readonly deviceId: string,
    /** fiskaly's id (UUID) of the register's client. */
    private readonly clientId: string,
    private readonly secrets: SecretBox,
    private readonly timeoutMs: number,
  ) {}

  async transact(exchange: DeviceExchange, request: TseTransactionRequest): Promise<SignedTseTransaction> {
    // What phase 1 got to, for the cancellation after it fails.
    const reached: { tse?: RemoteTse; sent?: string } = {};
    let begun: Begun;
    try {
      begun = await exchange(1, async (sql, signal) => {
        const loaded = await this.load(sql);
        reached.tse = loaded;
        return await this.begin(loaded, request, budgetOf(signal, this.timeoutMs), (txId) => (reached.sent = txId));
      });
    } catch (error) {
      if (reached.tse && reached.sent && mayHaveStarted(error)) await this.abandon(exchange, 1, reached.tse, reached.sent, 2);
      throw error;
    }
    const remote = reached.tse!;
    const started = begun;
    if (started.kind === 'finished') {
      return exchange(2, async (sql, signal) => {
        const start = await this.revision(remote, started.txId, 1, budgetOf(signal, this.timeoutMs), 2);
        return this.record(sql, remote, request, start, started.finish);
      });
    }
    let finishedRemotely = false;
    try {
      return await exchange(2, async (sql, signal) => {
        const finish = await this.finish(remote, request, started, budgetOf(signal, this.timeoutMs));
        finishedRemotely = true;
        return this.record(sql, remote, request, started.start, finish);
      });
    } catch (error) {
      if (finishedRemotely || !(error instanceof FiscalDeviceError)) throw error;
      const finish = await this.abandon(exchange, 2, remote, started.txId, started.nextRevision);
      if (!finish) throw error;
      return exchange(2, (sql) => this.record(sql, remote, request, started.start, finish));
    }
  }

  private async load(sql: SqlClient): Promise<RemoteTse> {
    const [row] = await sql.query<TseRow>(LOAD_DEVICE, [this.deviceId]);
    if (!row || row.status !== 'active' || !row.connection_enc) throw new FiscalDeviceError(1, 'inactive', 'The TSE is not active');
    const client = fiskalyClientFor(this.secrets, row.connection_enc);
    return {
      identity: { serialNumber: row.serial_number, publicKey: row.public_key, algorithm: row.algorithm as TseSignatureAlgorithm },
      client,
      tssId: client.tssId,
    };
  }

  /** Starts the record's transaction, or finds where an earlier attempt left it. */
  private async begin(tse: RemoteTse, request: TseTransactionRequest, budget: CallBudget, sending: (txId: string) => void): Promise<Begun> {
    for (let attempt = 0; attempt < MAX_TRANSACTIONS_PER_RECORD; attempt += 1) {
      const txId = transactionIdOf({ tssId: tse.tssId, clientId: this.clientId, recordKey: request.recordKey, processType: request.processType, processData: request.processData, attempt });
      sending(txId);
      let tx: FiskalyTransaction;
      try {
        tx = await tse.client.call<FiskalyTransaction>('PUT', `${this.txPath(tse, txId)}?tx_revision=1`, { state: 'ACTIVE', client_id: this.clientId }, budget);
      } catch (error) {
        // A refused start of an id that exists is an earlier attempt's transaction; of one that does not, a real refusal.
        const existing = error instanceof FiskalyApiError && error.kind === 'rejected' ? await this.current(tse, txId, budget).catch(() => null) : null;
        if (!existing) throw deviceErrorOf(error, 1);
        tx = existing;
      }
      // A replayed revision 1 of a transaction that moved on: where it stands now.
      if (latestRevisionOf(tx) > revisionOf(tx)) tx = (await this.current(tse, txId, budget)) ?? tx;
      switch (tx.state) {
        case 'ACTIVE': {
          const start = revisionOf(tx) === 1 ? tx : await this.revision(tse, txId, 1, budget, 1);
          return { kind: 'active', txId, start, nextRevision: latestRevisionOf(tx) + 1 };
        }
        case 'FINISHED':
          return { kind: 'finished', txId, finish: tx };
        case 'CANCELLED':
          continue;
        default:
          throw new FiscalDeviceError(1, 'rejected', `fiskaly reports the transaction ${txId} as ${tx.state}`);
      }
    }
    throw new FiscalDeviceError(1, 'rejected', `The record's last ${MAX_TRANSACTIONS_PER_RECORD} transactions at fiskaly were all cancelled`);
  }

  private async finish(tse: RemoteTse, request: TseTransactionRequest, started: Extract<Begun, { kind: 'active' }>, budget: CallBudget): Promise<FiskalyTransaction> {
    const body = {
      state: 'FINISHED',
      client_id: this.clientId,
      schema: { raw: { process_type: request.processType, process_data: Buffer.from(request.processData, 'utf8').toString('base64') } },
    };
    let finish: FiskalyTransaction;
    try {
      finish = await tse.client.call<FiskalyTransaction>('PUT', `${this.txPath(tse, started.txId)}?tx_revision=${started.nextRevision}`, body, budget);
    } catch (error) {
      throw deviceErrorOf(error, 2);
    }
    if (finish.state !== 'FINISHED') throw new FiscalDeviceError(2, 'rejected', `fiskaly left the transaction ${started.txId} ${finish.state}, not FINISHED`);
    return finish;
  }

  /**
   * After a failed attempt: cancels the transaction at `revision`. When that
   * revision exists already, the finish went through and its answer was lost;
   * the finished transaction is returned. Null: cancelled, never started, or
   * fiskaly cannot be reached now (the next attempt at the record deals with it).
   */
  private async abandon(exchange: DeviceExchange, phase: 1 | 2, tse: RemoteTse, txId: string, revision: number): Promise<FiskalyTransaction | null> {
    try {
      return await exchange(phase, async (_sql, signal) => {
        const budget = budgetOf(signal, this.timeoutMs);
        let tx: FiskalyTransaction | null;
        try {
          tx = await tse.client.call<FiskalyTransaction>('PUT', `${this.txPath(tse, txId)}?tx_revision=${revision}`, { state: 'CANCELLED', client_id: this.clientId }, budget);
        } catch (error) {
          if (!(error instanceof FiskalyApiError) || error.kind !== 'rejected') throw error;
          tx = await this.current(tse, txId, budget);
        }
        return tx?.state === 'FINISHED' ? tx : null;
      });
    } catch {
      return null;
    }
  }

  /** The transaction's latest revision; null when fiskaly has no transaction of that id. */
  private async current(tse: RemoteTse, txId: string, budget: CallBudget): Promise<FiskalyTransaction | null> {
    try {
      return await tse.client.call<FiskalyTransaction>('GET', this.txPath(tse, txId), undefined, budget);
    } catch (error) {
      if (error instanceof FiskalyApiError && error.status === 404) return null;
      throw deviceErrorOf(error, 1);
    }
  }

  /** One revision of the transaction (revision 1: its StartTransaction log). */
  private async revision(tse: RemoteTse, txId: string, revision: number, budget: CallBudget, phase: 1 | 2): Promise<FiskalyTransaction> {
    let tx: FiskalyTransaction;
    try {
      tx = await tse.client.call<FiskalyTransaction>('GET', `${this.txPath(tse, txId)}?tx_revision=${revision}`, undefined, budget);
    } catch (error) {
      throw deviceErrorOf(error, phase);
    }
    if (revisionOf(tx) !== revision) throw new FiscalDeviceError(phase, 'rejected', `fiskaly answered revision ${revisionOf(tx)} of the transaction ${txId} for revision ${revision}`);
    return tx;
  }

  private record(sql: SqlClient, tse: RemoteTse, request: TseTransactionRequest, startTx: FiskalyTransaction, finishTx: FiskalyTransaction): Promise<SignedTseTransaction> {
    const start = logEntryOf(startTx, 1, { processType: '', processData: '' }, startTx.time_start);
    const finish = logEntryOf(finishTx, 2, { processType: request.processType, processData: request.processData }, finishTx.time_end);
    if (finish.transactionNumber !== start.transactionNumber) {
      throw new FiscalDeviceError(2, 'rejected', `fiskaly finished transaction ${finish.transactionNumber}, not the started ${start.transactionNumber}`);
    }
    if (finishTx.client_serial_number !== undefined && finishTx.client_serial_number !== request.clientId) {
      throw new FiscalDeviceError(2, 'rejected', `fiskaly signed for client ${finishTx.client_serial_number}, not the register's ${request.clientId}`);
    }
    const signed: SignedTseTransaction = { tse: identityOf(finishTx, tse.identity), start, finish };
    return sql
      .query(INSERT_TRANSACTION, transactionRowParameters(this.deviceId, request.clientId, start, finish))
      .then(() => signed);
  }

  private txPath(tse: RemoteTse, txId: string): string {
    return `/tss/${encodeURIComponent(tse.tssId)}/tx/${txId}`;
  }
}
