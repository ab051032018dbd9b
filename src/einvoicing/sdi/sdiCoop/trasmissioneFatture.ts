import { readNotificationFile, type SdiNotificationType } from './notificationFile.js';
import { SDI_FILE_NAME, TRASMISSIONE_TYPES_NAMESPACE } from './riceviFileMessages.js';
import type { PushedSdiNotification } from './sdiNotificationInbox.js';
import { readSoapMessage, soapFault } from './soapMessage.js';
import { childElement, childText } from './xmlElements.js';

/** TrasmissioneFatture_v1.1.wsdl: each operation's element in the Body, and the notification it carries. */
const OPERATIONS: Record<string, { operation: string; type: SdiNotificationType }> = {
  ricevutaConsegna: { operation: 'RicevutaConsegna', type: 'RC' },
  notificaScarto: { operation: 'NotificaScarto', type: 'NS' },
  notificaMancataConsegna: { operation: 'NotificaMancataConsegna', type: 'MC' },
  notificaEsito: { operation: 'NotificaEsito', type: 'NE' },
  notificaDecorrenzaTermini: { operation: 'NotificaDecorrenzaTermini', type: 'DT' },
  attestazioneTrasmissioneFattura: { operation: 'AttestazioneTrasmissioneFattura', type: 'AT' },
};

const SOAP_ACTION_BASE = 'http://www.fatturapa.it/TrasmissioneFatture/';
const IDENTIFIER = /^\d{1,12}$/;

/** An HTTP request to the transmitter's TrasmissioneFatture endpoint, as the wiring received it. */
export interface TrasmissioneFattureRequest {
  contentType: string | undefined;
  /** The SOAPAction header as sent (quotes allowed), when there is one. */
  soapAction: string | undefined;
  body: Buffer;
}

/** Why a request is not a notification the SdI sends: a code and a message that names the defect. */
export interface UnreadableRequest {
  code: 'SOAP_UNREADABLE' | 'UNKNOWN_OPERATION' | 'SOAP_ACTION_MISMATCH' | 'FILE_SDI_INVALID' | 'NOTIFICATION_UNREADABLE' | 'IDENTIFIER_MISMATCH';
  message: string;
}

export type TrasmissioneFattureReading = ({ outcome: 'read' } & PushedSdiNotification) | { outcome: 'unreadable'; error: UnreadableRequest };

const unreadable = (code: UnreadableRequest['code'], message: string): TrasmissioneFattureReading => ({ outcome: 'unreadable', error: { code, message } });
const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Reads one request the SdI sends to the transmitter's TrasmissioneFatture service (SOAP 1.1,
 * plain or MTOM): the operation's fileSdI (IdentificativoSdI, the notification's NomeFile, and
 * File, the notification file in base64Binary), and the notification file it carries. The
 * IdentificativoSdI of the request and of the file must agree.
 */
export function readTrasmissioneFattureRequest(request: TrasmissioneFattureRequest): TrasmissioneFattureReading {
  let message: ReturnType<typeof readSoapMessage>;
  try {
    message = readSoapMessage(request.contentType, request.body);
  } catch (error) {
    return unreadable('SOAP_UNREADABLE', `not a SOAP 1.1 message: ${reasonOf(error)}`);
  }
  const { payload } = message;
  const known = payload.namespaceURI === TRASMISSIONE_TYPES_NAMESPACE ? OPERATIONS[payload.localName ?? ''] : undefined;
  if (!known) return unreadable('UNKNOWN_OPERATION', `{${payload.namespaceURI ?? ''}}${payload.localName} is no TrasmissioneFatture operation`);
  const action = request.soapAction?.trim().replace(/^"|"$/g, '');
  if (action && action !== `${SOAP_ACTION_BASE}${known.operation}`) {
    return unreadable('SOAP_ACTION_MISMATCH', `SOAPAction ${action} does not name ${known.operation}, the operation the body carries`);
  }
  const identifier = childText(payload, 'IdentificativoSdI');
  const fileName = childText(payload, 'NomeFile');
  const file = childElement(payload, 'File');
  if (!identifier || !IDENTIFIER.test(identifier)) return unreadable('FILE_SDI_INVALID', `${payload.localName} carries no IdentificativoSdI of at most 12 digits`);
  if (!fileName || !SDI_FILE_NAME.test(fileName)) return unreadable('FILE_SDI_INVALID', `${payload.localName} carries no NomeFile of 9 to 50 characters [a-zA-Z0-9_.]`);
  if (!file) return unreadable('FILE_SDI_INVALID', `${payload.localName} carries no File`);
  let notification: PushedSdiNotification['notification'];
  try {
    notification = readNotificationFile(known.type, message.binaryOf(file));
  } catch (error) {
    return unreadable('NOTIFICATION_UNREADABLE', `${fileName}: ${reasonOf(error)}`);
  }
  if (notification.identifier !== identifier) {
    return unreadable('IDENTIFIER_MISMATCH', `${fileName} is about IdentificativoSdI ${notification.identifier}, the request names ${identifier}`);
  }
  return { outcome: 'read', identifier, fileName, notification };
}

/** An HTTP answer for the wiring to send as it is. */
export interface TrasmissioneFattureAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The answer to a TrasmissioneFatture request. Its operations are one-way (no SOAP response,
 * Istruzioni SDICoop Trasmissione §1.4): a notification taken is 202 with an empty body (WS-I
 * Basic Profile); one refused is a SOAP 1.1 Fault with HTTP 500, `Client` for a request that
 * cannot be read, `Server` when the receiver could not keep it, so that the SdI counts the
 * push as failed.
 */
export function trasmissioneFattureAnswer(result: { taken: true } | { taken: false; fault: 'Client' | 'Server'; reason: string }): TrasmissioneFattureAnswer {
  if (result.taken) return { statusCode: 202, headers: {}, body: '' };
  return { statusCode: 500, headers: { 'content-type': 'text/xml; charset=utf-8' }, body: soapFault(result.fault, result.reason) };
}
