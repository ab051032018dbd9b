import type { ChannelReceipt, InvoiceChannel, TransmittedFile } from '../../invoiceChannel.js';
import { readSdiFile } from '../sdiFile.js';
import { fileOutcomeOf, isDuplicateCopy, recipientAnswerOf } from './fileOutcome.js';
import { RiceviFileClient } from './riceviFileClient.js';
import type { SdiCoopSettings } from './sdiCoopSettings.js';
import type { PushedSdiNotification, SdiNotificationInbox } from './sdiNotificationInbox.js';

/** An InvoiceChannel to the SdI over SDICoop; `close` ends its connections. */
export interface SdiCoopChannel extends InvoiceChannel {
  close(): Promise<void>;
}

/** The copy the SdI kept of a file sent before: the identifier of a notification that is not NS 00002 (a later copy's), else any. */
function earlierCopyOf(pushed: readonly PushedSdiNotification[]): string | null {
  return (pushed.find((entry) => !isDuplicateCopy(entry)) ?? pushed[0])?.identifier ?? null;
}

/**
 * The SdI over SDICoop (see README.md): `send` hands the file to SdIRiceviFile over mutual TLS;
 * `nextNotification` reads what the SdI pushed about it from `inbox`: first the notification
 * that decides the file, then, for an invoice to a public administration that was delivered,
 * the administration's NE or DT. Each is handed under its own file name, the id the worker
 * records once applied, with `more` true while another may still come.
 *
 * A file is sent again only when the SdI has said nothing about it: the worker hands a file over
 * again after a lost answer or a crash, and the SdI would take a second copy (and reject it with
 * NS 00002, nome file duplicato). So `send` first looks in the inbox: a notification about the
 * file name means the SdI has it, and its IdentificativoSdI is the receipt. When the second copy
 * went out anyway (no notification had come yet), its NS 00002 does not decide: the first
 * copy's notification does (fileOutcomeOf).
 */
export function sdiCoopChannel(settings: SdiCoopSettings, inbox: SdiNotificationInbox, clock: () => Date = () => new Date()): SdiCoopChannel {
  const client = new RiceviFileClient(settings);
  return {
    name: 'sdicoop',
    pollDelayMs: settings.pollDelayMs,
    send: async (file: TransmittedFile): Promise<ChannelReceipt> => {
      const identifier = earlierCopyOf(await inbox.notificationsAbout(file.fileName));
      if (identifier) return { outcome: 'received', identifier };
      return client.send(file);
    },
    nextNotification: async (file, { receivedAt, appliedNotificationIds }) => {
      const pushed = await inbox.notificationsAbout(file.fileName);
      const { format } = readSdiFile(file);
      const outcome = fileOutcomeOf(pushed, { format, receivedAt }, clock());
      if (!outcome) return null;
      // Only a public administration answers a delivered invoice (NE, or DT when it let the term pass).
      const recipientMayAnswer = format === 'FPA12' && outcome.notification.kind === 'delivered';
      if (!appliedNotificationIds.includes(outcome.id)) return { ...outcome, more: recipientMayAnswer };
      const answer = recipientMayAnswer ? recipientAnswerOf(pushed) : null;
      return answer && !appliedNotificationIds.includes(answer.id) ? { ...answer, more: false } : null;
    },
    close: () => client.close(),
  };
}
