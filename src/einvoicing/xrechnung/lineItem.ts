import type { InvoiceDocumentLine } from '../invoiceDocument.js';
import { ciiAmount, ciiPercent } from './ciiValues.js';
import { unitCode } from './unitCode.js';
import type { XmlNode } from './xmlNode.js';

/** UNCL 5189 "Discount": the reason code of a line allowance (BT-140). */
const DISCOUNT_REASON_CODE = '95';

/** BG-27: a line discount as an allowance; BR-42 wants a reason, the label or else a plain "Rabatt". */
function lineAllowance(discount: NonNullable<InvoiceDocumentLine['discount']>, currency: string): XmlNode {
  return {
    'ram:ChargeIndicator': { 'udt:Indicator': 'false' },
    'ram:ActualAmount': ciiAmount(discount.amount, currency),
    'ram:ReasonCode': DISCOUNT_REASON_CODE,
    'ram:Reason': discount.label?.trim() || 'Rabatt',
  };
}

/**
 * BG-25. The net price BT-146 is the price before the line's discount, which follows as a line
 * allowance, so that BT-131 = quantity x BT-146 - allowance. A "not subject to VAT" line
 * carries no rate (BR-O-05).
 */
export function lineItem(line: InvoiceDocumentLine, currency: string): XmlNode {
  return {
    'ram:AssociatedDocumentLineDocument': { 'ram:LineID': String(line.position) },
    'ram:SpecifiedTradeProduct': {
      ...(line.productRef?.trim() ? { 'ram:SellerAssignedID': line.productRef } : {}),
      'ram:Name': line.description,
    },
    'ram:SpecifiedLineTradeAgreement': {
      'ram:NetPriceProductTradePrice': { 'ram:ChargeAmount': ciiAmount(line.unitPriceNet, currency) },
    },
    'ram:SpecifiedLineTradeDelivery': {
      'ram:BilledQuantity': { '@_unitCode': unitCode(line.unit), '#text': line.quantity },
    },
    'ram:SpecifiedLineTradeSettlement': {
      'ram:ApplicableTradeTax': {
        'ram:TypeCode': 'VAT',
        'ram:CategoryCode': line.vatCategory,
        ...(line.vatCategory === 'O' ? {} : { 'ram:RateApplicablePercent': ciiPercent(line.vatRate) }),
      },
      ...(line.discount && line.discount.amount !== 0 ? { 'ram:SpecifiedTradeAllowanceCharge': lineAllowance(line.discount, currency) } : {}),
      'ram:SpecifiedTradeSettlementLineMonetarySummation': { 'ram:LineTotalAmount': ciiAmount(line.netAmount, currency) },
    },
  };
}
