import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.js';
import { changeInvoiceState } from '../../einvoicing/invoiceStateChange.js';
import { recordInvoiceStateChanged } from '../events/invoiceEvents.js';

/** How many due invoices one pass accepts; the next pass takes the rest. */
const BATCH = 200;

/**
 * Delivered invoices whose recipient stayed silent until their acceptance_due_at (SdI B2B: 15
 * days after delivery, set when the delivery was notified) become accepted. Runs in every
 * server instance every INVOICE_ACCEPTANCE_CHECK_MS by the service's clock; an invoice another
 * instance is accepting is skipped (SKIP LOCKED), and one answered meanwhile is no longer due.
 */
export class ImplicitAcceptances {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.acceptDue().finally(() => (this.running = undefined));
    }, this.ctx.config.invoiceAcceptanceCheckMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Accepts every invoice due now; returns how many. */
  async acceptDue(): Promise<number> {
    const now = this.ctx.clock();
    const due = await this.ctx.db.invoice.findMany({
      where: { state: 'delivered', acceptanceDueAt: { lte: now } },
      select: { id: true },
      orderBy: { acceptanceDueAt: 'asc' },
      take: BATCH,
    });
    let accepted = 0;
    for (const { id } of due) {
      try {
        const done = await this.ctx.db.$transaction(async (tx) => {
          const [locked] = await tx.$queryRaw<{ id: string }[]>`
            SELECT id FROM invoices WHERE id = ${id} AND state = 'delivered' AND acceptance_due_at <= ${now} FOR UPDATE SKIP LOCKED`;
          if (!locked) return false;
          const invoice = await tx.invoice.findUniqueOrThrow({ where: { id } });
          await changeInvoiceState(tx, invoice, {
            event: 'implicitly_accepted',
            at: now,
            update: { deliveryStatus: 'accepted', acceptanceDueAt: null },
            details: { acceptance_due_at: invoice.acceptanceDueAt?.toISOString() ?? null },
          }, recordInvoiceStateChanged(this.ctx.publicBaseUrl));
          return true;
        });
        if (done) accepted += 1;
      } catch (error) {
        this.log.error({ err: error, invoice_id: id }, 'implicit acceptance failed');
      }
    }
    if (accepted) this.log.info({ accepted }, 'invoices accepted by the recipient\'s silence');
    return accepted;
  }
}
