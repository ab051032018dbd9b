import { Agent, request } from 'undici';
import type { ChannelError, ChannelReceipt, TransmittedFile } from '../../invoiceChannel.js';
import { readRiceviFileAnswer, RICEVI_FILE_SOAP_ACTION, riceviFileEnvelope, SDI_FILE_NAME, type RiceviFileError } from './riceviFileMessages.js';
import type { SdiCoopSettings } from './sdiCoopSettings.js';

/** The longest text of the SdI's a message carries. */
const MAX_REASON_LENGTH = 300;

/** What the SdI's Errore means, and what follows: EI02 passes, EI01 and EI03 need a person. */
const ERRORE_MESSAGES: Record<RiceviFileError, string> = {
  EI01: 'The SdI answered EI01 (file allegato vuoto): it found the file empty. Retrying will not help: a person must check the stored document',
  EI02: 'The SdI answered EI02 (servizio momentaneamente non disponibile); the file is sent again later',
  EI03: "The SdI answered EI03 (utente non abilitato): it does not let this channel's certificate transmit. Retrying will not help: a person must check the SDICoop accreditation and its certificates",
};

/** Node's and OpenSSL's codes for a server certificate the client could not verify. */
const SERVER_CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** An error's code as Node or undici gives it (ECONNREFUSED, ERR_SSL_..., UND_ERR_SOCKET): it names no key, path or body. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'UNKNOWN';
}

/**
 * The connection's failure as the worker records it. An answer lost after the request went out
 * (a reset, a timeout) may hide a file the SdI received: the channel looks for its
 * notifications before it sends the file again.
 */
function failureOf(error: unknown, timedOut: boolean): ChannelError {
  if (timedOut) return { code: 'SDI_TIMEOUT', message: 'The SdI did not answer RiceviFile in time; whether it received the file is unknown' };
  const code = errorCode(error);
  if (code.startsWith('ERR_OSSL_')) {
    return { code: 'SDI_CLIENT_CERTIFICATE_UNUSABLE', message: `The channel's client certificate and key cannot be used for TLS (${code}); a person must configure a matching pair` };
  }
  if (SERVER_CERTIFICATE_CODES.has(code)) {
    return { code: 'SDI_TLS_FAILED', message: `The TLS handshake with the SdI failed (${code}): its server certificate does not verify against the configured CA` };
  }
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
    return { code: 'SDI_TLS_FAILED', message: `The TLS handshake with the SdI failed (${code}): the SdI refused the channel's client certificate, or the two sides share no protocol` };
  }
  if (code === 'UND_ERR_SOCKET') {
    // Under TLS 1.3 a server checks the client certificate after the client's handshake ends, so its refusal arrives as a closed connection.
    return {
      code: 'SDI_CONNECTION_CLOSED',
      message: "The SdI closed the connection without answering: it refused the channel's client certificate, or dropped the request; whether it received the file is unknown",
    };
  }
  return { code: 'SDI_UNREACHABLE', message: `The SdI cannot be reached (${code})` };
}

const unreachable = (...errors: ChannelError[]): ChannelReceipt => ({ outcome: 'unreachable', errors });

/**
 * SdIRiceviFile over SOAP 1.1 and mutual TLS: the channel's client certificate and key, and
 * only the configured CAs trusted for the SdI's server certificate. One call per file, bounded
 * by the timeout, never retried here: the transmission worker retries an unreachable SdI with
 * backoff. No key or certificate reaches an answer or an error.
 */
export class RiceviFileClient {
  private readonly agent: Agent;

  constructor(private readonly settings: Pick<SdiCoopSettings, 'endpoint' | 'clientCertificatePem' | 'clientKeyPem' | 'caPems' | 'timeoutMs'>) {
    this.agent = new Agent({
      connect: { cert: settings.clientCertificatePem, key: settings.clientKeyPem, ca: settings.caPems, rejectUnauthorized: true, timeout: settings.timeoutMs },
    });
  }

  async send(file: TransmittedFile): Promise<ChannelReceipt> {
    if (!SDI_FILE_NAME.test(file.fileName)) {
      return unreachable({ code: 'SDI_FILE_NAME_INVALID', message: `The SdI takes file names of 9 to 50 characters [a-zA-Z0-9_.], not ${file.fileName}; a person must look at the invoice` });
    }
    const signal = AbortSignal.timeout(this.settings.timeoutMs);
    let statusCode: number;
    let contentType: string | undefined;
    let body: Buffer;
    try {
      const response = await request(this.settings.endpoint, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${RICEVI_FILE_SOAP_ACTION}"` },
        body: riceviFileEnvelope(file),
        signal,
      });
      statusCode = response.statusCode;
      const header = response.headers['content-type'];
      contentType = Array.isArray(header) ? header[0] : header;
      body = Buffer.from(await response.body.arrayBuffer());
    } catch (error) {
      return unreachable(failureOf(error, signal.aborted));
    }
    let answer: ReturnType<typeof readRiceviFileAnswer> | null = null;
    let unreadable = '';
    try {
      answer = readRiceviFileAnswer(contentType, body);
    } catch (error) {
      unreadable = error instanceof Error ? error.message : String(error);
    }
    if (answer?.outcome === 'fault') {
      const reason = (answer.reason || answer.code || 'without a reason').slice(0, MAX_REASON_LENGTH);
      return unreachable({ code: 'SDI_SOAP_FAULT', message: `The SdI answered RiceviFile with a SOAP Fault (HTTP ${statusCode}): ${reason}` });
    }
    if (statusCode < 200 || statusCode >= 300) return unreachable({ code: `SDI_HTTP_${statusCode}`, message: `The SdI answered RiceviFile with HTTP ${statusCode}` });
    if (!answer) return unreachable({ code: 'SDI_ANSWER_UNREADABLE', message: `The SdI's answer to RiceviFile cannot be read (${unreadable}); whether it received the file is unknown` });
    if (answer.outcome === 'error') return unreachable({ code: answer.error, message: ERRORE_MESSAGES[answer.error] });
    return { outcome: 'received', identifier: answer.identifier };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
