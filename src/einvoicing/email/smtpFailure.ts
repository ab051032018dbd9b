import type { SmtpConnection } from './smtpConnection.js';
import { withoutPassword } from './smtpConnection.js';

/**
 * How a conversation with the mail server failed:
 * - `refused`: a permanent reply (5xx but 503) to the recipient or to the message (RCPT TO, DATA);
 * - `deferred`: a transient reply (4xx) to them: the same message may pass later;
 * - `unauthorized`: the login was refused (AUTH);
 * - `tls`: the connection could not be protected as configured (no STARTTLS, a bad certificate);
 * - `misconfigured`: the server refused the session for the account's settings (MAIL FROM: a sender it does not allow);
 * - `unreachable`: no connection, no answer within the bound, or the connection was lost.
 */
export type SmtpFailureKind = 'refused' | 'deferred' | 'unauthorized' | 'tls' | 'misconfigured' | 'unreachable';

export interface SmtpFailure {
  kind: SmtpFailureKind;
  /** The code the invoice's fiscal_errors show: SMTP_<reply code>, else SMTP_<kind>. */
  code: string;
  /** The server's reply or the network's error, without the password. */
  message: string;
}

/** The fields nodemailer sets on its errors (NodemailerError), read defensively. */
interface NodemailerFailure {
  code?: string;
  /** Node's own code under a socket error nodemailer renamed ESOCKET (a certificate's: CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, ...). */
  originalCode?: string;
  command?: string;
  response?: string;
  responseCode?: number;
  permanent?: boolean;
  message?: string;
}

const AFTER_THE_ENVELOPE = /^(RCPT|DATA)/i;
/** Node's TLS failures: a certificate that does not verify, a name it does not cover, a failed handshake. */
const TLS_FAILURE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|TLS|SSL/;

/** What a nodemailer error says happened: its kind, the code the invoice shows, and the server's words. */
export function smtpFailureOf(error: unknown, connection: SmtpConnection): SmtpFailure {
  const failure = (error ?? {}) as NodemailerFailure;
  const said = withoutPassword(connection, failure.response ?? failure.message ?? String(error));
  const replied = typeof failure.responseCode === 'number';
  const code = replied ? `SMTP_${failure.responseCode}` : null;
  const kindOf = (): SmtpFailureKind => {
    if (failure.code === 'EAUTH' || failure.code === 'ENOAUTH') return 'unauthorized';
    if (failure.code === 'ETLS' || TLS_FAILURE.test(failure.originalCode ?? '')) return 'tls';
    if (replied && (failure.code === 'EENVELOPE' || failure.code === 'EMESSAGE' || AFTER_THE_ENVELOPE.test(failure.command ?? ''))) {
      if (failure.command?.toUpperCase().startsWith('MAIL')) return 'misconfigured';
      // RFC 5321: 5yz is permanent, except 503 (a bad sequence, which a new session clears).
      const permanent = failure.permanent ?? (failure.responseCode! >= 500 && failure.responseCode !== 503);
      return permanent ? 'refused' : 'deferred';
    }
    return 'unreachable';
  };
  const kind = kindOf();
  return { kind, code: code ?? `SMTP_${kind.toUpperCase()}`, message: said };
}
