/**
 * Where the SdI pushes an sdicoop configuration's notifications (its TrasmissioneFatture
 * service): outside /v1, since it is the SdI's SOAP interface and not the API. The
 * configuration's id in the path is random (src/lib/ids.ts, ~119 bits), so the URL names one
 * configuration and cannot be guessed; the SdI's client certificate is checked in front of it.
 */
export const SDICOOP_NOTIFICATION_ROUTE = '/sdicoop/:configId/trasmissione-fatture';

export const sdiCoopNotificationUrl = (publicBaseUrl: string, configId: string): string =>
  `${publicBaseUrl}${SDICOOP_NOTIFICATION_ROUTE.replace(':configId', encodeURIComponent(configId))}`;
