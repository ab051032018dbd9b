import type { FastifyBaseLogger } from 'fastify';
import { Prisma as Sql } from '../../../db/generated/client.js';
import type { Prisma } from '../../../db/database.js';
import { JobQueue, type HeldJob } from '../../../db/jobQueue.js';
import { sqlOf } from '../../../db/sql.js';
import { backoffDelayMs } from '../../../domain/backoff.js';
import type { SecretBox } from '../../../lib/secretBox.js';
import { PollingWorker } from '../../../lib/pollingWorker.js';
import { qrCodeOf } from '../receiptCode.js';
import { signatureUnitDriverNamed } from '../signatureUnitDrivers.js';
import type { FinanzOnlineAnswer, FinanzOnlineAuthority, FinanzOnlineLogin, FinanzOnlineMessage, FinanzOnlineRequest, RegisteredUnit } from './authority.js';
import { initialRegistration, type FinanzOnlineRegistration, type FinanzOnlineReport } from './registration.js';
import { queueDueOutageReports, SUBMISSION_STEPS, type SubmissionKind, type SubmissionStep } from './submissions.js';

/** Retries of a FinanzOnline that does not answer back off to at most this far apart. */
const MAX_RETRY_DELAY_MS = 3_600_000;
/** Longest gap between two looks for outages due to be reported. */
const MAX_SCAN_INTERVAL_MS = 60_000;

export interface SubmissionWorkerOptions {
  db: Prisma;
  secrets: SecretBox;
  log: FastifyBaseLogger;
  clock: () => Date;
  pollMs: number;
  leaseMs: number;
  /** The first retry's delay; each next one doubles, up to an hour. */
  retryMs: number;
  /** Bound on one request. */
  timeoutMs: number;
  /** An outage lasting this long is reported. */
  outageReportAfterMs: number;
  authority: FinanzOnlineAuthority;
  transmission: FinanzOnlineRegistration['transmission'];
  /** A submission is taken up this long after it was queued (the sandbox's simulated FinanzOnline, to let a simulation be set first). */
  takenUpAfterMs: number;
}

/** A submission with what its requests are made of: the register's RKSV row and start receipt. */
interface SubmissionRow {
  id: string;
  seq: bigint;
  merchant_id: string;
  register_id: string;
  kind: SubmissionKind;
  payload: { occurred_at?: string };
  steps_done: string[] | null;
  worker_id: string | null;
  attempts: number;
  cash_register_id: string;
  suite: string;
  signature_device_id: string;
  driver: string;
  public_key: string;
  aes_key_enc: string;
  authority_simulation: string;
  registration: FinanzOnlineRegistration | null;
  start_jws: string | null;
  /** Other active registers of the merchant that sign with the same unit (a trust service account several registers share). */
  sharing_unit: number;
}

interface StoredLogin {
  id: string;
  participant_id_sealed: string | null;
  user_id_sealed: string | null;
  pin_sealed: string | null;
}

/** A register's submissions go one after another: one is claimed only when those queued before it for the register are done. */
const IN_REGISTER_ORDER = Sql.sql`NOT EXISTS (
  SELECT 1 FROM finanz_online_submissions earlier
   WHERE earlier.register_id = finanz_online_submissions.register_id
     AND earlier.seq < finanz_online_submissions.seq AND earlier.status <> 'done')`;

/** paket_nr (1..999 999 999): distinct for each request of each submission. */
const packageNumberOf = (seq: bigint, step: number): number => Number((seq * 4n + BigInt(step)) % 999_999_999n) + 1;

const reportTypeOf: Record<Exclude<SubmissionKind, 'registration'>, FinanzOnlineReport['type']> = {
  outage: 'outage',
  recovery: 'recovery',
  decommission: 'decommission',
};

/**
 * Sends an Austrian register's FinanzOnline submissions from the
 * finanz_online_submissions queue (the job mechanism of exports), a
 * register's in the order they were queued, each request of a submission
 * after the one before it was answered:
 * - accepted: the step is recorded on the register and the next one is sent;
 * - rejected (a business code): the register shows the authority's reason; not retried;
 * - no answer (network, timeout, 5xx, maintenance): `failed`, retried with backoff;
 * - login refused: `failed`, and the submission waits until the merchant's
 *   finanz_online credential changes (repeating a refused PIN locks the user).
 * Between jobs it queues the reports of outages that have lasted 48 hours.
 */
export class SubmissionWorker {
  private readonly queue: JobQueue;
  private readonly loop: PollingWorker;
  private nextScanAt = 0;

  constructor(private readonly options: SubmissionWorkerOptions) {
    const claimable = Sql.sql`${IN_REGISTER_ORDER} AND finanz_online_submissions.created_at <= now() - make_interval(secs => ${options.takenUpAfterMs / 1000})`;
    this.queue = new JobQueue(options.db, 'finanz_online_submissions', Math.max(options.leaseMs, 2 * options.timeoutMs), claimable);
    this.loop = new PollingWorker({ name: 'finanzonline submission', log: options.log, pollMs: options.pollMs, runOne: (workerId) => this.runOne(workerId) });
  }

  start(): void {
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.options.authority.close?.();
  }

  private async runOne(workerId: string): Promise<boolean> {
    const id = await this.queue.claim(workerId);
    if (!id) return this.scanOutages();
    const job = await this.load(id);
    if (!job) return true;
    const held: HeldJob = { id: job.id, workerId: job.worker_id, attempts: job.attempts };
    const login = await this.login(job.merchant_id);
    const steps: readonly SubmissionStep[] = SUBMISSION_STEPS[job.kind];
    const done = new Set(job.steps_done ?? []);
    for (const [index, step] of steps.entries()) {
      if (done.has(step)) continue;
      if (!(await this.queue.renew(held))) return true;
      const request = this.requestOf(job, step);
      const answer: FinanzOnlineAnswer = request
        ? await this.options.authority.submit(login?.values ?? null, request, {
            packageNumber: packageNumberOf(job.seq, index),
            simulation: job.authority_simulation,
            signal: AbortSignal.timeout(this.options.timeoutMs),
          })
        : { outcome: 'accepted', code: '0', message: 'Not sent: other registers still sign with the unit', check: null };
      const last = index === steps.length - 1;
      const settled = await this.record(job, held, step, answer, login, last);
      if (!settled) return true;
      if (answer.outcome !== 'accepted' || last) break;
      // Another look: the next request reads the state this one wrote.
      job.registration = (await this.load(id))?.registration ?? job.registration;
    }
    return true;
  }

  /** Queues the reports of outages now due, at most every so often; whether any was queued. */
  private async scanOutages(): Promise<boolean> {
    const now = this.options.clock().getTime();
    if (now < this.nextScanAt) return false;
    this.nextScanAt = now + Math.min(MAX_SCAN_INTERVAL_MS, Math.max(this.options.pollMs, this.options.outageReportAfterMs / 20));
    const queued = await this.options.db.$transaction((tx) => queueDueOutageReports(sqlOf(tx), new Date(now - this.options.outageReportAfterMs)));
    if (queued) this.options.log.info({ outages: queued }, 'RKSV outages queued for their FinanzOnline report');
    return queued > 0;
  }

  private async load(id: string): Promise<SubmissionRow | null> {
    const rows = await this.options.db.$queryRaw<SubmissionRow[]>`
      SELECT s.id, s.seq, s.merchant_id, s.register_id, s.kind, s.payload, s.steps_done, s.worker_id, s.attempts,
             c.cash_register_id, c.suite, c.signature_device_id, c.driver, c.public_key, c.aes_key_enc, c.authority_simulation,
             r.device_details -> 'registration' AS registration,
             (SELECT b.jws FROM rksv_receipts b WHERE b.rksv_cash_register_id = c.id AND b.type = 'start' ORDER BY b.receipt_number LIMIT 1) AS start_jws,
             (SELECT count(*)::int FROM rksv_cash_registers o
               WHERE o.merchant_id = c.merchant_id AND o.signature_device_id = c.signature_device_id AND o.id <> c.id AND o.status = 'active') AS sharing_unit
        FROM finanz_online_submissions s
        JOIN rksv_cash_registers c ON c.id = s.rksv_cash_register_id
        JOIN registers r ON r.id = s.register_id
       WHERE s.id = ${id}`;
    return rows[0] ?? null;
  }

  /** The merchant's newest finanz_online credential, opened; null when it stored none. */
  private async login(merchantId: string): Promise<{ id: string; values: FinanzOnlineLogin } | null> {
    const rows = await this.options.db.$queryRaw<StoredLogin[]>`
      SELECT id, participant_id_sealed, user_id_sealed, pin_sealed FROM fiscal_portal_credentials
       WHERE merchant_id = ${merchantId} AND portal_type = 'finanz_online'
       ORDER BY updated_at DESC LIMIT 1`;
    const stored = rows[0];
    if (!stored?.participant_id_sealed || !stored.user_id_sealed || !stored.pin_sealed) return null;
    const { secrets } = this.options;
    return {
      id: stored.id,
      values: { participantId: secrets.open(stored.participant_id_sealed), userId: secrets.open(stored.user_id_sealed), pin: secrets.open(stored.pin_sealed) },
    };
  }

  private unitOf(job: SubmissionRow): RegisteredUnit {
    return signatureUnitDriverNamed(job.driver).registeredUnit({ suite: job.suite, signature_device_id: job.signature_device_id, public_key: job.public_key });
  }

  /** The request a step sends; null for a step with nothing to send (a unit other registers still sign with is not decommissioned). */
  private requestOf(job: SubmissionRow, step: SubmissionStep): FinanzOnlineRequest | null {
    const occurredAt = new Date(job.payload.occurred_at ?? this.options.clock().toISOString());
    switch (step) {
      case 'register_unit':
        return { type: 'register_unit', unit: this.unitOf(job) };
      case 'register_cash_register':
        return { type: 'register_cash_register', cashRegisterId: job.cash_register_id, aesKey: this.options.secrets.open(job.aes_key_enc) };
      case 'check_receipt':
        if (!job.start_jws) throw new Error(`The RKSV register of ${job.register_id} has no start receipt`);
        return { type: 'check_receipt', qrCode: qrCodeOf(job.start_jws), publicKey: job.public_key };
      case 'report_unit_outage':
        return { type: 'report_unit_outage', unit: this.unitOf(job), since: occurredAt };
      case 'report_unit_recovery':
        return { type: 'report_unit_recovery', unit: this.unitOf(job), at: occurredAt };
      case 'decommission_cash_register':
        return { type: 'decommission_cash_register', cashRegisterId: job.cash_register_id };
      case 'decommission_unit':
        return job.sharing_unit > 0 ? null : { type: 'decommission_unit', unit: this.unitOf(job) };
    }
  }

  /**
   * Records one answer on the register and the submission, while this
   * attempt still holds the job; false when it no longer does.
   */
  private async record(
    job: SubmissionRow,
    held: HeldJob,
    step: SubmissionStep,
    answer: FinanzOnlineAnswer,
    login: { id: string } | null,
    last: boolean,
  ): Promise<boolean> {
    const { db, clock, log } = this.options;
    const now = clock();
    const next = answer.outcome === 'unavailable' ? 'retry' : answer.outcome === 'login_refused' ? 'blocked' : answer.outcome === 'rejected' || last ? 'done' : 'continue';
    const settled = await db.$transaction(async (tx) => {
      const current = await tx.$queryRaw<{ registration: FinanzOnlineRegistration | null }[]>`
        SELECT device_details -> 'registration' AS registration FROM registers
         WHERE id = ${job.register_id} AND EXISTS (SELECT 1 FROM finanz_online_submissions WHERE ${this.queue.held(held)})
           FOR UPDATE`;
      if (!current.length) return false;
      const registration = this.advanced(current[0].registration ?? job.registration, job, step, answer, now);
      await tx.$executeRaw`
        UPDATE registers SET device_details = jsonb_set(coalesce(device_details, '{}'::jsonb), '{registration}', ${JSON.stringify(registration)}::jsonb)
         WHERE id = ${job.register_id}`;
      if (answer.outcome === 'accepted') {
        await tx.$executeRaw`UPDATE finanz_online_submissions SET steps_done = array_append(coalesce(steps_done, '{}'), ${step}) WHERE id = ${job.id}`;
      }
      if (login && (answer.outcome === 'accepted' || answer.outcome === 'login_refused')) {
        const refused = answer.outcome === 'login_refused';
        await tx.$executeRaw`
          UPDATE fiscal_portal_credentials SET state = ${refused ? 'invalid' : 'valid'}, last_validated_at = ${now},
                 validation_error = ${refused ? `FinanzOnline refused the login: ${answer.message}` : null}
           WHERE id = ${login.id} AND (state IS DISTINCT FROM ${refused ? 'invalid' : 'valid'} OR ${refused})`;
      }
      if (next === 'done' || next === 'blocked') {
        await tx.$executeRaw`UPDATE finanz_online_submissions SET status = ${next}, locked_until = NULL WHERE ${this.queue.held(held)}`;
      }
      return true;
    });
    if (!settled) return false;
    if (next === 'retry') {
      const delayMs = backoffDelayMs(job.attempts, this.options.retryMs, MAX_RETRY_DELAY_MS);
      await this.queue.release(held, delayMs);
      log.info({ register_id: job.register_id, kind: job.kind, step, code: answer.code, attempts: job.attempts, retry_in_ms: delayMs }, 'FinanzOnline did not answer, retrying');
    } else {
      log.info({ register_id: job.register_id, kind: job.kind, step, outcome: answer.outcome, code: answer.code }, 'FinanzOnline answered');
    }
    return true;
  }

  /** The register's registration after `answer` to `step`. */
  private advanced(
    stored: FinanzOnlineRegistration | null,
    job: SubmissionRow,
    step: SubmissionStep,
    answer: FinanzOnlineAnswer,
    now: Date,
  ): FinanzOnlineRegistration {
    const registration: FinanzOnlineRegistration = structuredClone(stored ?? initialRegistration(this.options.transmission, now));
    registration.updated_at = now.toISOString();
    const reason: FinanzOnlineMessage | null = answer.outcome === 'accepted' ? null : { code: answer.code, message: answer.message };
    if (job.kind === 'registration') {
      registration.attempts = job.attempts;
      if (answer.outcome === 'unavailable' || answer.outcome === 'login_refused') {
        registration.status = 'failed';
        registration.reason = reason;
        return registration;
      }
      const rejected = answer.outcome === 'rejected';
      if (step === 'register_unit') registration.signature_unit = rejected ? 'rejected' : 'registered';
      if (step === 'register_cash_register') registration.cash_register = rejected ? 'rejected' : 'registered';
      if (step === 'check_receipt') {
        const passed = answer.outcome === 'accepted' && answer.check?.passed !== false;
        registration.start_receipt_check = { status: passed ? 'passed' : 'failed', checked_at: now.toISOString(), reason: passed ? null : reason ?? { code: answer.code, message: answer.message } };
      }
      if (rejected && step !== 'check_receipt') {
        registration.status = 'rejected';
        registration.reason = reason;
      } else if (registration.signature_unit === 'registered' && registration.cash_register === 'registered') {
        registration.status = 'registered';
        registration.reason = null;
        registration.registered_at ??= now.toISOString();
      } else {
        registration.status = 'pending';
        registration.reason = null;
      }
      return registration;
    }
    const type = reportTypeOf[job.kind];
    let report = registration.reports.find((entry) => entry.id === job.id);
    if (!report) {
      report = { id: job.id, type, status: 'pending', occurred_at: job.payload.occurred_at ?? now.toISOString(), reason: null, reported_at: null };
      registration.reports.push(report);
    }
    if (answer.outcome === 'accepted') {
      const last = SUBMISSION_STEPS[job.kind].at(-1) === step;
      report.status = last ? 'reported' : 'pending';
      report.reason = null;
      if (last) report.reported_at = now.toISOString();
    } else {
      report.status = answer.outcome === 'rejected' ? 'rejected' : 'failed';
      report.reason = reason;
    }
    return registration;
  }
}
