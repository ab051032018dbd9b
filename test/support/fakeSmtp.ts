// A fake mail server (smtp-server) on 127.0.0.1 at a random port, the way an organization's
// submission server answers the smtp invoice channel: AUTH PLAIN or LOGIN with one account
// (plain text is allowed here; STARTTLS is offered with smtp-server's own certificate and
// optional). It records every message it accepts, raw, and every login, and on demand refuses
// the next recipient permanently (550) or temporarily (451), or takes a message and never
// answers (a 250 lost on the way back).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export const SMTP_USERNAME = 'rechnungsversand@mueller-werkzeuge.de';
export const SMTP_PASSWORD = 'smtp-Pa55word-c41d9e07';

export interface ReceivedMail {
  mailFrom: string | null;
  recipients: string[];
  /** The message exactly as it came over DATA. */
  raw: Buffer;
}

export type SmtpFault =
  | { kind: 'refuse_recipient'; code: 550 | 451; message: string }
  /** Reads the whole message and never answers it. */
  | { kind: 'hang_after_data' };

const withCode = (message: string, responseCode: number) => Object.assign(new Error(message), { responseCode });

export class FakeSmtp {
  readonly received: ReceivedMail[] = [];
  readonly logins: { username: string; accepted: boolean }[] = [];
  private faults: SmtpFault[] = [];

  private constructor(private readonly server: SMTPServer, readonly port: number) {}

  static async start(): Promise<FakeSmtp> {
    let fake: FakeSmtp | null = null;
    const server = new SMTPServer({
      logger: false,
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: true,
      closeTimeout: 100,
      onAuth(auth, _session, callback) {
        const accepted = auth.username === SMTP_USERNAME && auth.password === SMTP_PASSWORD;
        fake!.logins.push({ username: auth.username ?? '', accepted });
        if (!accepted) return callback(withCode('5.7.8 Authentication credentials invalid', 535));
        callback(null, { user: auth.username });
      },
      onRcptTo(_address, _session, callback) {
        const fault = fake!.faults[0];
        if (fault?.kind !== 'refuse_recipient') return callback();
        fake!.faults.shift();
        callback(withCode(fault.message, fault.code));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          fake!.received.push({
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
            recipients: session.envelope.rcptTo.map((recipient) => recipient.address),
            raw: Buffer.concat(chunks),
          });
          if (fake!.faults[0]?.kind === 'hang_after_data') {
            fake!.faults.shift();
            return;
          }
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = (server as unknown as { server: { address(): AddressInfo } }).server.address();
    fake = new FakeSmtp(server, address.port);
    return fake;
  }

  /** The next conversations meet these faults, in order. */
  failNext(...faults: SmtpFault[]): void {
    this.faults.push(...faults);
  }

  clearFaults(): void {
    this.faults = [];
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
