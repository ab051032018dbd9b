import type { Invoice } from '../../db/generated/client.js';
import { sqlOf } from '../../db/sql.js';
import type { Tx } from '../../db/transaction.js';
import type { InvoiceStateObserver } from '../../einvoicing/invoiceStateChange.js';
import { recordEvent } from '../../outbox/recordEvent.js';
import { presentInvoice } from '../invoices/presenter.js';

/**
 * `invoice.state_changed` for every state change of an invoice, creation included, in the
 * change's transaction: the invoice as GET /v1/invoices/{id} shows it, and the state it left
 * (null on creation).
 */
export const recordInvoiceStateChanged =
  (publicBaseUrl: string): InvoiceStateObserver =>
  async (tx: Tx, invoice: Invoice, previousState) => {
    await recordEvent(sqlOf(tx), {
      type: 'invoice.state_changed',
      merchantId: invoice.merchantId,
      data: { object: presentInvoice(invoice, publicBaseUrl), previous_state: previousState },
    });
  };
