import { XMLBuilder } from 'fast-xml-parser';
import type { InvoiceDocument } from '../invoiceDocument.js';
import { dateTimeString } from './ciiValues.js';
import { documentTypeCode } from './documentTypeCode.js';
import { lineItem } from './lineItem.js';
import { monetarySummation } from './monetarySummation.js';
import { paymentInstructions } from './paymentInstructions.js';
import { paymentMeansOf } from './paymentMeans.js';
import { paymentTerms } from './paymentTerms.js';
import { CII_NAMESPACES, XRECHNUNG_BUSINESS_PROCESS, XRECHNUNG_CUSTOMIZATION_ID } from './profile.js';
import { postalTradeAddress, tradeParty } from './tradeParty.js';
import { headerTradeTax, vatBreakdownEntries } from './vatBreakdown.js';
import type { XmlNode } from './xmlNode.js';

/** BG-13: the delivery date, or the issue date when the request gave none; intra-community supplies also name where the goods went (BR-IC-12), the buyer's address. */
function headerTradeDelivery(invoice: InvoiceDocument): XmlNode {
  const intraCommunity = invoice.lines.some((line) => line.vatCategory === 'K');
  return {
    ...(intraCommunity
      ? { 'ram:ShipToTradeParty': { 'ram:Name': invoice.buyer.legalName, 'ram:PostalTradeAddress': postalTradeAddress(invoice.buyer.address) } }
      : {}),
    'ram:ActualDeliverySupplyChainEvent': {
      'ram:OccurrenceDateTime': { 'udt:DateTimeString': dateTimeString(invoice.references.deliveryDate ?? invoice.issueDate) },
    },
  };
}

function headerTradeAgreement(invoice: InvoiceDocument, notSubjectToVat: boolean): XmlNode {
  const { purchaseOrderRef, contractRef } = invoice.references;
  return {
    'ram:BuyerReference': invoice.routing.buyerReference?.trim(),
    'ram:SellerTradeParty': tradeParty(invoice.seller, { withVatId: !notSubjectToVat, withTaxCode: true }),
    'ram:BuyerTradeParty': tradeParty(invoice.buyer, { withVatId: !notSubjectToVat, withTaxCode: false }),
    ...(purchaseOrderRef?.trim() ? { 'ram:BuyerOrderReferencedDocument': { 'ram:IssuerAssignedID': purchaseOrderRef } } : {}),
    ...(contractRef?.trim() ? { 'ram:ContractReferencedDocument': { 'ram:IssuerAssignedID': contractRef } } : {}),
  };
}

function headerTradeSettlement(invoice: InvoiceDocument): XmlNode {
  const terms = invoice.paymentTerms;
  const means = terms && paymentMeansOf(terms.method);
  if (!terms || !means) throw new Error('an XRechnung needs payment instructions it can state (BR-DE-1)');
  const breakdown = vatBreakdownEntries(invoice.vatBreakdown);
  const termsNode = paymentTerms(terms, invoice.currency);
  const original = invoice.references.originalInvoice;
  return {
    // BT-83, the remittance information a transfer carries: the invoice number.
    ...(means.creditTransfer ? { 'ram:PaymentReference': invoice.invoiceNumber } : {}),
    'ram:InvoiceCurrencyCode': invoice.currency,
    'ram:SpecifiedTradeSettlementPaymentMeans': paymentInstructions(means, terms),
    'ram:ApplicableTradeTax': breakdown.map((entry) => headerTradeTax(entry, invoice.currency)),
    ...(termsNode ? { 'ram:SpecifiedTradePaymentTerms': termsNode } : {}),
    'ram:SpecifiedTradeSettlementHeaderMonetarySummation': monetarySummation(invoice, breakdown),
    ...(original
      ? {
          'ram:InvoiceReferencedDocument': {
            'ram:IssuerAssignedID': original.invoiceNumber,
            'ram:FormattedIssueDateTime': { 'qdt:DateTimeString': dateTimeString(original.issueDate) },
          },
        }
      : {}),
  };
}

/**
 * The invoice as an XRechnung 3.0 in UN/CEFACT CII D16B (rsm:CrossIndustryInvoice), in the
 * order the schema's sequences prescribe. On a "not subject to VAT" invoice neither party
 * shows a VAT identifier (BR-O-02).
 */
export function buildCrossIndustryInvoice(invoice: InvoiceDocument): string {
  const notSubjectToVat = invoice.lines.some((line) => line.vatCategory === 'O');
  // A blank note would be an empty element, which XRechnung rejects (PEPPOL-EN16931-R008).
  const notes = invoice.notes.filter((note) => note.trim() !== '');
  const document = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    'rsm:CrossIndustryInvoice': {
      '@_xmlns:rsm': CII_NAMESPACES.rsm,
      '@_xmlns:ram': CII_NAMESPACES.ram,
      '@_xmlns:qdt': CII_NAMESPACES.qdt,
      '@_xmlns:udt': CII_NAMESPACES.udt,
      'rsm:ExchangedDocumentContext': {
        'ram:BusinessProcessSpecifiedDocumentContextParameter': { 'ram:ID': XRECHNUNG_BUSINESS_PROCESS },
        'ram:GuidelineSpecifiedDocumentContextParameter': { 'ram:ID': XRECHNUNG_CUSTOMIZATION_ID },
      },
      'rsm:ExchangedDocument': {
        'ram:ID': invoice.invoiceNumber,
        'ram:TypeCode': documentTypeCode(invoice.documentType),
        'ram:IssueDateTime': { 'udt:DateTimeString': dateTimeString(invoice.issueDate) },
        ...(notes.length ? { 'ram:IncludedNote': notes.map((note) => ({ 'ram:Content': note })) } : {}),
      },
      'rsm:SupplyChainTradeTransaction': {
        'ram:IncludedSupplyChainTradeLineItem': invoice.lines.map((line) => lineItem(line, invoice.currency)),
        'ram:ApplicableHeaderTradeAgreement': headerTradeAgreement(invoice, notSubjectToVat),
        'ram:ApplicableHeaderTradeDelivery': headerTradeDelivery(invoice),
        'ram:ApplicableHeaderTradeSettlement': headerTradeSettlement(invoice),
      },
    },
  };
  return new XMLBuilder({ ignoreAttributes: false, format: true, indentBy: '  ', suppressEmptyNode: false }).build(document) as string;
}
