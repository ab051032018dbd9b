import type { Prisma as Db } from '../../../db/generated/client.js';
import type { SdiNotification } from './notificationFile.js';

/** A notification as sdi_notifications.notification keeps it: JSON, an RC's delivery time as ISO 8601 text. */
export const storedSdiNotificationOf = (notification: SdiNotification): Db.InputJsonValue =>
  (notification.type === 'RC' ? { ...notification, deliveredAt: notification.deliveredAt.toISOString() } : notification) as Db.InputJsonValue;

/** The notification a stored one was. */
export function sdiNotificationFromStored(stored: Db.JsonValue): SdiNotification {
  const notification = stored as unknown as SdiNotification;
  return notification.type === 'RC' ? { ...notification, deliveredAt: new Date(notification.deliveredAt as unknown as string) } : notification;
}
