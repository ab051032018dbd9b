import type { Prisma } from '../../../db/database.js';
import type { SdiNotificationInbox } from './sdiNotificationInbox.js';
import { sdiNotificationFromStored } from './storedSdiNotification.js';

/** The inbox of one sdicoop configuration: the notifications its TrasmissioneFatture endpoint stored (sdi_notifications), in arrival order. */
export function databaseNotificationInbox(db: Prisma, configId: string): SdiNotificationInbox {
  return {
    async notificationsAbout(invoiceFileName) {
      const rows = await db.sdiNotification.findMany({ where: { configId, invoiceFileName }, orderBy: { id: 'asc' } });
      return rows.map((row) => ({ identifier: row.identifier, fileName: row.fileName, notification: sdiNotificationFromStored(row.notification) }));
    },
  };
}
