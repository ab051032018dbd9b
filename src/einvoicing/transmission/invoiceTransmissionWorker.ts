import type { FastifyBaseLogger } from 'fastify';
import type { Prisma } from '../../db/database.js';
import { JobQueue, type HeldJob } from '../../db/jobQueue.js';
import type { Tx } from '../../db/transaction.js';
import { backoffDelayMs } from '../../domain/backoff.js';
import type { Prisma as Db } from '../../db/generated/client.js';
import { AWAITING_CHANNEL_ANSWER, nextInvoiceState, type InvoiceState } from '../../domain/invoices/invoiceStates.js';
import { PollingWorker } from '../../lib/pollingWorker.js';
import { settleCancellation } from '../cancellationSettlement.js';
import { applyChannelNotification } from '../channelNotifications.js';
import type { InvoiceChannels } from '../channels/invoiceChannels.js';
import type { ChannelAnswer, TransmissionEnvelope, TransmittedFile } from '../invoiceChannel.js';
import { changeInvoiceState, lockInvoice, type InvoiceStateObserver } from '../invoiceStateChange.js';

/** Retries of an unreachable channel start this far apart and double, up to MAX_RETRY_DELAY_MS. */
const FIRST_RETRY_DELAY_MS = 1000;
const MAX_RETRY_DELAY_MS = 30_000;

/** The buyer's electronic address (BT-49) from the invoice's stored buyer. */
const buyerEmailOf = (buyer: Db.JsonValue): string | null => {
  const email = (buyer as { email?: unknown } | null)?.email;
  return typeof email === 'string' && email !== '' ? email : null;
};

export const retryDelayMs = (attempts: number) => backoffDelayMs(attempts, FIRST_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS);

/**
 * The states in which a received file's channel may still notify: besides the first answer
 * (AWAITING_CHANNEL_ANSWER), a public administration's NE or DT after delivery and the SdI's AT
 * after an MC. A notification the invoice's state does not take is recorded as seen and changes nothing.
 */
const MAY_HEAR_FROM_CHANNEL: readonly InvoiceState[] = [...AWAITING_CHANNEL_ANSWER, 'delivered', 'undeliverable'];

export interface InvoiceTransmissionWorkerOptions {
  db: Prisma;
  log: FastifyBaseLogger;
  clock: () => Date;
  pollMs: number;
  leaseMs: number;
  /** Which channel carries an invoice: the organization's or the default to send, the one that received it after. */
  channels: InvoiceChannels;
  /** Follows every state change the worker makes (the invoice.state_changed event). */
  invoiceStateObserver: InvoiceStateObserver;
}

/**
 * Carries submitted invoices through their channel (the SdI, a mail server) from the invoice_transmission_jobs
 * queue, the job mechanism exports and COR10 transmissions use. A job is written in the
 * submission's transaction, so a crash between submission and transmission loses nothing: any
 * instance's worker takes the job up. First it hands the file over (submitted -> transmitted
 * with the channel's identifier; an unreachable channel is retried with backoff, the reason in
 * fiscal_errors); then it asks for the outcome, `pollDelayMs` later, until the channel has no
 * more to say (delivered, undeliverable, rejected_by_authority, and a public administration's
 * answer). The channel is the organization's for the jurisdiction, else the deployment's
 * default; the one that received the file is recorded with the invoice and answers for it. A
 * file handed over just before a crash is handed over again: the channel must find it rather
 * than take it twice. A channel that has nothing more to say after its receipt (e-mail: the
 * server's 250) ends the job there; one that refuses the recipient for good as the file is
 * handed over (a 5xx) makes the invoice undeliverable straight from submitted, and one that
 * refuses the file itself (an intermediary's validation) makes it rejected_by_authority, as
 * the SdI's NS would. Either refusal is applied as the notification of its name. An invoice whose
 * organization removed its channel before the file went, in a jurisdiction without a default
 * (Germany), is transmitted as at submission. Each notification the channel numbers is applied
 * once. An invoice cancelled after the hand-over still gets its answer
 * (domain/invoices/invoiceStates.ts).
 */
export class InvoiceTransmissionWorker {
  private readonly queue: JobQueue;
  private readonly loop: PollingWorker;

  constructor(private readonly options: InvoiceTransmissionWorkerOptions) {
    this.queue = new JobQueue(options.db, 'invoice_transmission_jobs', options.leaseMs);
    this.loop = new PollingWorker({ name: 'invoice transmission', log: options.log, pollMs: options.pollMs, runOne: (workerId) => this.runOne(workerId) });
  }

  start(): void {
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Ends this attempt in the caller's transaction: done, or due again after `delayMs`; false when the job was taken over. */
  private async settle(tx: Tx, job: HeldJob, next: { done: true } | { done: false; delayMs: number }): Promise<boolean> {
    const updated = next.done
      ? await tx.$executeRaw`UPDATE invoice_transmission_jobs SET status = 'done', locked_until = NULL WHERE ${this.queue.held(job)}`
      : await tx.$executeRaw`
          UPDATE invoice_transmission_jobs
             SET status = 'pending', locked_until = NULL, worker_id = NULL, run_after = now() + make_interval(secs => ${next.delayMs / 1000})
           WHERE ${this.queue.held(job)}`;
    return updated === 1;
  }

  /**
   * The organization removed its channel (Germany's smtp) after the invoice was submitted and
   * before the file went: the jurisdiction has no default, so the invoice is transmitted, as
   * one submitted without a channel is, settling a cancellation it makes.
   */
  private async transmitWithoutChannel(tx: Tx, job: HeldJob, invoiceId: string): Promise<void> {
    if (!(await this.settle(tx, job, { done: true }))) return;
    const current = await lockInvoice(tx, invoiceId);
    if (current?.state !== 'submitted') return;
    const at = this.options.clock();
    const observer = this.options.invoiceStateObserver;
    const transmitted = await changeInvoiceState(tx, current, { event: 'received_by_authority', at, update: { transmissionStatus: 'transmitted', transmittedAt: at, fiscalErrors: [] } }, observer);
    await settleCancellation(tx, transmitted, 'confirmed', at, observer);
  }

  private async runOne(workerId: string): Promise<boolean> {
    const { db, log, clock, invoiceStateObserver } = this.options;
    const id = await this.queue.claim(workerId);
    if (!id) return false;
    const job = await db.invoiceTransmissionJob.findUniqueOrThrow({ where: { id }, include: { invoice: true } });
    const held: HeldJob = job;
    const { invoice } = job;
    const sending = !invoice.authorityIdentifier;
    const resolved = sending ? await this.options.channels.forSending(invoice) : await this.options.channels.forReceived(invoice);
    const stillOpen = sending ? invoice.state === 'submitted' : MAY_HEAR_FROM_CHANNEL.includes(invoice.state as InvoiceState);
    if (sending && !resolved && stillOpen) {
      await db.$transaction((tx) => this.transmitWithoutChannel(tx, held, invoice.id));
      return true;
    }
    if (!resolved || !invoice.document || !invoice.documentFileName || !stillOpen) {
      await db.$transaction((tx) => this.settle(tx, held, { done: true }));
      return true;
    }
    const { channel, configId } = resolved;
    const file: TransmittedFile = { fileName: invoice.documentFileName, document: invoice.document };

    if (sending) {
      const envelope: TransmissionEnvelope = { invoiceId: invoice.id, invoiceNumber: invoice.invoiceNumber ?? '', buyerEmail: buyerEmailOf(invoice.buyer) };
      const receipt = await channel.send(file, envelope);
      if (receipt.outcome === 'unreachable') {
        await db.invoice.update({ where: { id: invoice.id }, data: { transmissionStatus: 'failed', fiscalErrors: receipt.errors as object[] } });
        const delayMs = Math.max(retryDelayMs(job.attempts), receipt.retryAfterMs ?? 0);
        await this.queue.release(held, delayMs);
        log.info({ invoice_id: invoice.id, attempts: job.attempts, retry_in_ms: delayMs }, 'invoice transmission failed, retrying');
        return true;
      }
      await db.$transaction(async (tx) => {
        const notifies = receipt.outcome === 'received' && receipt.notifies !== false;
        if (!(await this.settle(tx, held, notifies ? { done: false, delayMs: channel.pollDelayMs } : { done: true }))) return;
        const current = await lockInvoice(tx, invoice.id);
        if (current?.state !== 'submitted') return;
        const at = clock();
        // The channel that received the file answers for it from now on, whatever the organization configures later.
        const jurisdictionData = { ...(current.jurisdictionData as Record<string, unknown> | null), channel: channel.name };
        const channelConfig = configId ? { channelConfig: { connect: { id: configId } } } : {};
        if (receipt.outcome !== 'received') {
          const refused = await tx.invoice.update({
            where: { id: current.id },
            data: { transmissionStatus: 'rejected', fiscalErrors: receipt.errors as object[], jurisdictionData: jurisdictionData as Db.InputJsonValue, ...channelConfig },
          });
          await applyChannelNotification(tx, refused, { kind: receipt.outcome, errors: receipt.errors }, at, invoiceStateObserver);
          return;
        }
        await changeInvoiceState(tx, current, {
          event: 'received_by_authority',
          at,
          update: {
            authorityIdentifier: receipt.identifier,
            transmittedAt: at,
            transmissionStatus: 'transmitted',
            fiscalErrors: [],
            jurisdictionData: jurisdictionData as Db.InputJsonValue,
            ...channelConfig,
          },
          details: { authority_identifier: receipt.identifier },
        }, invoiceStateObserver);
      });
      if (receipt.outcome !== 'received') log.info({ invoice_id: invoice.id, channel: channel.name, errors: receipt.errors }, `invoice refused by its channel: ${receipt.outcome}`);
      else log.info({ invoice_id: invoice.id, authority_identifier: receipt.identifier, channel: channel.name }, 'invoice received by its channel');
      return true;
    }

    // The identifier and the time of receipt are written together when the channel takes the file.
    const received = { identifier: invoice.authorityIdentifier!, receivedAt: invoice.transmittedAt!, appliedNotificationIds: invoice.channelNotificationIds };
    let answer: ChannelAnswer | null;
    try {
      answer = await channel.nextNotification(file, received);
    } catch (error) {
      const delayMs = Math.max(retryDelayMs(job.attempts), channel.pollDelayMs);
      await this.queue.release(held, delayMs);
      log.warn({ invoice_id: invoice.id, channel: channel.name, reason: error instanceof Error ? error.message : String(error), retry_in_ms: delayMs }, 'invoice notifications could not be asked, retrying');
      return true;
    }
    if (!answer) {
      await this.queue.release(held, channel.pollDelayMs);
      return true;
    }
    const { notification, id: notificationId } = answer;
    const applied = await db.$transaction(async (tx) => {
      if (!(await this.settle(tx, held, answer.more ? { done: false, delayMs: channel.pollDelayMs } : { done: true }))) return false;
      const current = await lockInvoice(tx, invoice.id);
      if (!current || !MAY_HEAR_FROM_CHANNEL.includes(current.state as InvoiceState)) return false;
      if (notificationId !== undefined) {
        if (current.channelNotificationIds.includes(notificationId)) return false;
        await tx.invoice.update({ where: { id: current.id }, data: { channelNotificationIds: { push: notificationId } } });
      }
      if (nextInvoiceState(current.state as InvoiceState, notification.kind) === null) return false;
      await applyChannelNotification(tx, current, notification, clock(), invoiceStateObserver);
      return true;
    });
    log.info({ invoice_id: invoice.id, notification: notification.kind, notification_id: notificationId, applied }, 'invoice notification read');
    return true;
  }
}
