import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.js';
import { sendDueCertificateReminders } from '../fiscalCertificates/renewalReminders.js';
import { sendDueCredentialReminders } from '../portalCredentials/expiryReminders.js';

/**
 * The expiry scan (DESIGN "Fiscal certificates and portal credentials"): certificate renewal
 * reminders and expiring portal passwords, as events. Runs in every instance, at start and
 * every EXPIRY_SCAN_MS (at most 30 s) by the service's clock; the reminders' claims make each
 * event happen once however many instances scan.
 */
export class ExpiryScan {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.ctx.config.expiryScanMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    this.running ??= this.scan()
      .catch((error) => this.log.warn({ err: error }, 'expiry scan failed'))
      .finally(() => (this.running = undefined));
  }

  /** Sends every reminder due now. */
  async scan(): Promise<void> {
    const now = this.ctx.clock();
    const certificates = await sendDueCertificateReminders(this.ctx, now);
    const credentials = await sendDueCredentialReminders(this.ctx, now);
    if (certificates || credentials) this.log.info({ certificates, credentials }, 'expiry reminders recorded');
  }
}
