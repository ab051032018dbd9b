import type { TransmittedFile } from '../../invoiceChannel.js';
import { readSoapMessage, soapEnvelope, soapFaultOf, xmlEscaped } from './soapMessage.js';
import { childElement, childText } from './xmlElements.js';

/** The namespace of the SDICoop Trasmissione messages' elements (TrasmissioneTypes_v1.0/1.1.xsd). */
export const TRASMISSIONE_TYPES_NAMESPACE = 'http://www.fatturapa.gov.it/sdi/ws/trasmissione/v1.0/types';

/** SdIRiceviFile_v1.0.wsdl: the SOAPAction of its one operation. */
export const RICEVI_FILE_SOAP_ACTION = 'http://www.fatturapa.it/SdIRiceviFile/RiceviFile';

/** nomeFile_Type of TrasmissioneTypes: the names the SdI takes for a file. */
export const SDI_FILE_NAME = /^[a-zA-Z0-9_.]{9,50}$/;

/** erroreInvio_Type: EI01 empty file, EI02 service unavailable, EI03 user not enabled. */
export const RICEVI_FILE_ERRORS = ['EI01', 'EI02', 'EI03'] as const;
export type RiceviFileError = (typeof RICEVI_FILE_ERRORS)[number];

/**
 * The RiceviFile request (fileSdIAccoglienza): NomeFile, and File as xsd:base64Binary inline.
 * The schema allows MTOM for File (xmime:expectedContentTypes) without requiring it, and a
 * FatturaPA file is small, so the envelope stays one text/xml part.
 */
export const riceviFileEnvelope = (file: TransmittedFile): string =>
  soapEnvelope(
    `<types:fileSdIAccoglienza xmlns:types="${TRASMISSIONE_TYPES_NAMESPACE}"><NomeFile>${xmlEscaped(file.fileName)}</NomeFile><File>${Buffer.from(file.document).toString('base64')}</File></types:fileSdIAccoglienza>`,
  );

/** What an answer to RiceviFile says (rispostaSdIRiceviFile, or a SOAP Fault). */
export type RiceviFileAnswer =
  | { outcome: 'received'; identifier: string; receivedAt: Date }
  | { outcome: 'error'; error: RiceviFileError }
  | { outcome: 'fault'; code: string; reason: string };

const IDENTIFIER = /^\d{1,12}$/;

/** Reads the SdI's answer to RiceviFile, plain or MTOM; throws, saying why, when it is neither an answer nor a Fault. */
export function readRiceviFileAnswer(contentType: string | undefined, body: Buffer): RiceviFileAnswer {
  const { payload } = readSoapMessage(contentType, body);
  const fault = soapFaultOf(payload);
  if (fault) return { outcome: 'fault', ...fault };
  if (payload.localName !== 'rispostaSdIRiceviFile' || payload.namespaceURI !== TRASMISSIONE_TYPES_NAMESPACE) {
    throw new Error(`the answer carries {${payload.namespaceURI ?? ''}}${payload.localName}, not rispostaSdIRiceviFile`);
  }
  // The schema requires IdentificativoSdI and DataOraRicezione even beside an Errore: the Errore decides.
  const error = childText(payload, 'Errore');
  if (error !== null) {
    if (!(RICEVI_FILE_ERRORS as readonly string[]).includes(error)) throw new Error(`the answer carries an unknown Errore ${error}`);
    return { outcome: 'error', error: error as RiceviFileError };
  }
  const identifier = childText(payload, 'IdentificativoSdI');
  const receivedAt = new Date(childText(payload, 'DataOraRicezione') ?? '');
  if (!identifier || !IDENTIFIER.test(identifier)) throw new Error('the answer carries no IdentificativoSdI of at most 12 digits');
  if (!childElement(payload, 'DataOraRicezione') || Number.isNaN(receivedAt.getTime())) throw new Error('the answer carries no valid DataOraRicezione');
  return { outcome: 'received', identifier, receivedAt };
}
