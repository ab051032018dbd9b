import { Decimal } from 'decimal.js';
import { XMLBuilder } from 'fast-xml-parser';
import { defaultTimeZone } from '../../../domain/countryTimeZones.js';
import { localDateTimeOf } from '../../../domain/localTime.js';
import { toAmount } from '../../../domain/money.js';
import type { RtDocumentRequest, RtLine, RtReference } from '../rtDriver.js';
import { departmentOf, type DepartmentTable } from './departments.js';

/**
 * The ePOS-Print Fiscal XML documents the driver sends (reference italy.md §3,
 * §4, §7): one command document in a SOAP 1.1 envelope.
 */

/** One command of a document: an element with attributes only. */
export interface PrinterCommand {
  name: string;
  attributes: Record<string, string>;
}

const SOAP_ENVELOPE = 'http://schemas.xmlsoap.org/soap/envelope/';
/** The operator every command runs as; a server-side till has one. */
const OPERATOR = '1';
/** The width of a description on the printed document. */
const DESCRIPTION_WIDTH = 38;
/** The original's date in the REFUND message is its Italian date. */
const ITALY = defaultTimeZone('ITA');

/** printRecTotal `paymentType`: 0 cash, 2 credit or debit card, the printer's type for electronic payments. */
const PAYMENT_TYPE = { cash: '0', electronic: '2' } as const;
const PAYMENT_DESCRIPTION = { cash: 'CONTANTI', electronic: 'PAGAMENTO ELETTRONICO' } as const;
/** printRecItemAdjustment `adjustmentType` on the item just sold. */
const ITEM_ADJUSTMENT = { discount: '0', surcharge: '5' } as const;
/** printRecSubtotalAdjustment `adjustmentType`: a discount on the subtotal, printed. */
const SUBTOTAL_DISCOUNT = '1';

const builder = new XMLBuilder({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', suppressEmptyNode: true });

const command = (name: string, attributes: Record<string, string> = {}): PrinterCommand => ({
  name,
  attributes: { operator: OPERATOR, ...attributes },
});

/** XML 1.0 allows no control characters but tab and line breaks, and a printed line has none of those either. */
const printable = (text: string): string =>
  Array.from(text.replace(/\p{Cc}+/gu, ' ').trim())
    .slice(0, DESCRIPTION_WIDTH)
    .join('');

const amount = (value: Decimal): string => value.toFixed(2);

/** Up to three places, as Epson takes quantities. */
const quantityOf = (line: RtLine): Decimal => new Decimal(line.quantity).toDecimalPlaces(3);

/**
 * What the printer charges for a line: quantity times the unit price at two
 * places, rounded half up to the cent (the printer's rounding is assumed to be
 * the usual one; unconfirmed).
 */
const printedAmount = (quantity: Decimal, unitPrice: Decimal): Decimal => quantity.times(unitPrice).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

/** A sold line; a line discount (or a rounding the printer would do otherwise) follows as an adjustment, so the printer's total is the line's. */
function saleLine(line: RtLine, department: string): PrinterCommand[] {
  const quantity = quantityOf(line);
  const unitPrice = toAmount(line.unitPrice).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  const item = command('printRecItem', {
    description: printable(line.description),
    quantity: quantity.toString(),
    unitPrice: amount(unitPrice),
    department,
    justification: '1',
  });
  const difference = printedAmount(quantity, unitPrice).minus(toAmount(line.total));
  if (difference.isZero()) return [item];
  const discount = difference.isPositive();
  const adjustment = command('printRecItemAdjustment', {
    description: discount ? 'SCONTO' : 'MAGGIORAZIONE',
    adjustmentType: discount ? ITEM_ADJUSTMENT.discount : ITEM_ADJUSTMENT.surcharge,
    amount: amount(difference.abs()),
    department,
    justification: '1',
  });
  return [item, adjustment];
}

/**
 * A returned line. A refund takes no adjustment, so a line sold at a discount
 * is refunded as one unit at what was paid for it.
 */
function refundLine(line: RtLine, department: string): PrinterCommand {
  const quantity = quantityOf(line);
  const unitPrice = toAmount(line.unitPrice).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  const total = toAmount(line.total);
  const asSold = printedAmount(quantity, unitPrice).eq(total);
  return command('printRecRefund', {
    description: printable(line.description),
    quantity: asSold ? quantity.toString() : '1',
    unitPrice: amount(asSold ? unitPrice : total),
    department,
    justification: '1',
  });
}

/**
 * `REFUND <fiscal day> <progressive> <DDMMYYYY> <matricola>` of the original
 * (reference §3). It goes ahead of beginFiscalReceipt: on it the printer opens
 * a documento di reso instead of a sale.
 */
function refundReference(reference: RtReference): PrinterCommand {
  const number = /^(\d{4})-(\d{4})$/.exec(reference.documentNumber);
  if (!number) throw new RangeError(`A referenced RT document number is NNNN-NNNN, not ${reference.documentNumber}`);
  const date = localDateTimeOf(reference.issuedAt, ITALY);
  const message = `REFUND ${number[1]} ${number[2]} ${date.day}${date.month}${date.year} ${reference.deviceSerial}`;
  return command('printRecMessage', { messageType: '4', message });
}

/** The commands of a documento commerciale (sale) or di reso (return), in the order the printer takes them. */
export function fiscalReceiptCommands(request: RtDocumentRequest, departments: DepartmentTable): PrinterCommand[] {
  const commands: PrinterCommand[] = [];
  if (request.kind === 'return') {
    if (!request.reference) throw new RangeError('A return names the document it returns');
    commands.push(refundReference(request.reference));
  }
  commands.push(command('beginFiscalReceipt'));
  for (const line of request.lines) {
    const department = String(departmentOf(departments, line.tax));
    if (request.kind === 'sale') commands.push(...saleLine(line, department));
    else commands.push(refundLine(line, department));
  }
  for (const discount of request.discounts) {
    commands.push(
      command('printRecSubtotalAdjustment', {
        description: printable(discount.description),
        adjustmentType: SUBTOTAL_DISCOUNT,
        amount: amount(toAmount(discount.amount)),
        justification: '1',
      }),
    );
  }
  if (request.lotteryCode) commands.push(command('printRecLotteryID', { code: request.lotteryCode }));
  // A document paid with nothing (fully discounted) still needs its total closed.
  const payments = request.payments.length ? request.payments : [{ kind: 'cash' as const, amount: '0' }];
  for (const payment of payments) {
    commands.push(
      command('printRecTotal', {
        description: PAYMENT_DESCRIPTION[payment.kind],
        payment: amount(toAmount(payment.amount)),
        paymentType: PAYMENT_TYPE[payment.kind],
        index: '1',
        justification: '1',
      }),
    );
  }
  commands.push(command('endFiscalReceipt'));
  return commands;
}

/** The daily closure: a Z report, which the printer may take up to `timeoutMs` to print. */
export function zReportCommands(timeoutMs: number): PrinterCommand[] {
  return [command('printZReport', { timeout: String(timeoutMs) })];
}

/** The request body fpmate.cgi takes: the XML declaration, then `s:Envelope/s:Body/<document>`. */
export function soapRequest(document: 'printerFiscalReceipt' | 'printerFiscalReport', commands: PrinterCommand[]): string {
  const element = (name: string, attributes: Record<string, string>, children: unknown[] = []) => ({ [name]: children, ':@': attributes });
  return builder.build([
    element('?xml', { version: '1.0', encoding: 'utf-8' }, [{ '#text': '' }]),
    element('s:Envelope', { 'xmlns:s': SOAP_ENVELOPE }, [
      element('s:Body', {}, [element(document, {}, commands.map(({ name, attributes }) => element(name, attributes)))]),
    ]),
  ]);
}
