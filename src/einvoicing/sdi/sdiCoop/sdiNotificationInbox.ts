import type { SdiNotification } from './notificationFile.js';

/** A notification the SdI pushed to the transmitter's TrasmissioneFatture service. */
export interface PushedSdiNotification {
  /** IdentificativoSdI: the SdI's number for the invoice file (the copy) the notification is about. */
  identifier: string;
  /** The notification's own file name, unique per notification (IT01234567890_00001_RC_001.xml). */
  fileName: string;
  notification: SdiNotification;
}

/**
 * Where the notifications the SdI pushed wait for the channel: the wiring stores each one that
 * readTrasmissioneFattureRequest read (once per notification file name: a push whose answer
 * was lost may come again), and the channel reads them when the transmission worker asks.
 */
export interface SdiNotificationInbox {
  /**
   * Every notification stored about files the SdI received under this name (its NomeFile), in
   * arrival order: a file sent twice (a lost answer, then a retry) has notifications under two
   * IdentificativoSdI. Empty while none has arrived.
   */
  notificationsAbout(invoiceFileName: string): Promise<readonly PushedSdiNotification[]>;
}
