import { createTransport } from 'nodemailer';
import type { SMTPTransportOptions } from 'nodemailer';

/**
 * How the connection to the organization's mail server is protected: `tls` implicit TLS from
 * the first byte (port 465), `starttls` an upgrade the server must offer (port 587, refused
 * without it), `none` plain text (the sandbox only, for a local test server).
 */
export const SMTP_SECURITY = ['tls', 'starttls', 'none'] as const;
export type SmtpSecurity = (typeof SMTP_SECURITY)[number];

/** One mail server account; the password is the one secret. */
export interface SmtpConnection {
  host: string;
  port: number;
  security: SmtpSecurity;
  username: string;
  password: string;
  /** The sender address (RFC 5322 From and the envelope's MAIL FROM). */
  from: string;
}

/**
 * A nodemailer transport to the account's server: one connection a message, each step bounded
 * by `timeoutMs` (connecting, the greeting, every reply), nothing logged by nodemailer itself.
 */
export function smtpTransportOf(connection: SmtpConnection, timeoutMs: number) {
  const options: SMTPTransportOptions = {
    host: connection.host,
    port: connection.port,
    secure: connection.security === 'tls',
    requireTLS: connection.security === 'starttls',
    ignoreTLS: connection.security === 'none',
    auth: { user: connection.username, pass: connection.password },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    logger: false,
  };
  return createTransport(options);
}

/** What an error or a log line may carry of a server's words: the password cut out, should the server echo it. */
export const withoutPassword = (connection: SmtpConnection, text: string): string => text.split(connection.password).join('[redacted]');
