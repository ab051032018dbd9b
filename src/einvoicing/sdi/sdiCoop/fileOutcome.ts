import { DAY_MS } from '../../../domain/dayLength.js';
import type { ChannelNotification } from '../../invoiceChannel.js';
import { channelNotificationOf } from './channelNotificationOf.js';
import type { PushedSdiNotification } from './sdiNotificationInbox.js';

/** NS 00002: a file of this name had reached the SdI before; the SdI's answer to a second copy of one file. */
export const DUPLICATE_FILE_NAME = '00002';

/**
 * The SdI notifies every file it received within 5 days (reference italy.md §10); a day more
 * covers a push that came late. After that, an NS 00002 with no other copy's outcome means the name
 * belonged to a file this service never had an answer for.
 */
const ALL_NOTIFIED_AFTER_MS = 6 * DAY_MS;

/** A notification as it means something for the invoice, and the pushed notification's file name, its id with the worker. */
export interface SdiOutcome {
  notification: ChannelNotification;
  id: string;
}

/** An NS saying only that the file name was taken: about this copy, not about the invoice. */
export const isDuplicateCopy = ({ notification }: PushedSdiNotification): boolean =>
  notification.type === 'NS' && notification.errors.every(({ code }) => code === DUPLICATE_FILE_NAME);

/**
 * The notification that decides a file's fate (RC, NS, MC for B2B, AT), among those pushed about
 * every copy of it, in arrival order; null while it has not come.
 *
 * A copy rejected with NS 00002 only is a file sent again after its first answer was lost: the
 * first copy's own notification decides. An invoice to a public administration (FPA12) is not
 * decided by MC: the SdI keeps trying for 10 days, then sends RC or AT. NE and DT answer for the
 * recipient later (see recipientAnswerOf).
 */
export function fileOutcomeOf(pushed: readonly PushedSdiNotification[], file: { format: string; receivedAt: Date }, now: Date): SdiOutcome | null {
  const decisive = pushed.find((entry) => {
    const { type } = entry.notification;
    if (isDuplicateCopy(entry)) return false;
    return type === 'RC' || type === 'NS' || type === 'AT' || (type === 'MC' && file.format !== 'FPA12');
  });
  if (decisive) return { notification: channelNotificationOf(decisive.notification, file.format), id: decisive.fileName };
  const duplicate = pushed.find(isDuplicateCopy);
  if (duplicate?.notification.type !== 'NS' || now.getTime() - file.receivedAt.getTime() < ALL_NOTIFIED_AFTER_MS) return null;
  return {
    notification: {
      kind: 'rejected',
      errors: duplicate.notification.errors.map(({ code, description }) => ({
        code,
        message: `${description || 'Nome file duplicato'}: the SdI holds an earlier file of this name that this service has no outcome for`,
      })),
    },
    id: duplicate.fileName,
  };
}

/**
 * The recipient's answer to a delivered invoice to a public administration: NE (EC01, EC02) or
 * DT, whichever came (the SdI refuses an outcome after the term, so there is one); null while
 * none came.
 */
export function recipientAnswerOf(pushed: readonly PushedSdiNotification[]): SdiOutcome | null {
  const answer = pushed.find(({ notification }) => notification.type === 'NE' || notification.type === 'DT');
  return answer ? { notification: channelNotificationOf(answer.notification, 'FPA12'), id: answer.fileName } : null;
}
