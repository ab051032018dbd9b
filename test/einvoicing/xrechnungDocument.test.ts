// The XRechnung document: valid against the CII D16B schema (read from ../shared/reference, never
// copied) and free of EN 16931 / XRechnung business-rule failures per the independent checker.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { validateXML } from 'xmllint-wasm';
import { describe, expect, it } from 'vitest';
import type { InvoiceDocument } from '../../src/einvoicing/invoiceDocument.js';
import { xrechnungFormat } from '../../src/einvoicing/xrechnung/index.js';
import { parseXml, selectCii } from '../support/ciiXpath.js';
import { germanBuyer, germanInvoice, germanSeller, type LineSpec } from '../support/xrechnungInvoices.js';
import { checkEn16931 } from './en16931Rules.js';

const XSD_DIR = '../shared/reference/xsd/cii-d16b';
const ROOT_XSD = 'CrossIndustryInvoice_100pD16B.xsd';
const IMPORTED_XSDS = [
  'CrossIndustryInvoice_QualifiedDataType_100pD16B.xsd',
  'CrossIndustryInvoice_ReusableAggregateBusinessInformationEntity_100pD16B.xsd',
  'CrossIndustryInvoice_UnqualifiedDataType_100pD16B.xsd',
];
const xsd = (fileName: string) => ({ fileName, contents: readFileSync(join(XSD_DIR, fileName), 'utf8') });
const schema = [xsd(ROOT_XSD)];
const preload = IMPORTED_XSDS.map(xsd);

async function expectSchemaValid(xml: string) {
  const result = await validateXML({ xml: [{ fileName: 'xrechnung.xml', contents: xml }], schema, preload });
  expect(result.errors).toEqual([]);
  expect(result.valid).toBe(true);
}

/** The text of every node the path selects, in document order. */
function valuesAt(xml: string, path: string): string[] {
  return selectCii(path, parseXml(xml)).map((node) => String(node.textContent ?? node.nodeValue));
}
const valueAt = (xml: string, path: string) => valuesAt(xml, path)[0];

const SETTLEMENT = '//ram:ApplicableHeaderTradeSettlement';
const SUMMATION = `${SETTLEMENT}/ram:SpecifiedTradeSettlementHeaderMonetarySummation`;
const SELLER = '//ram:SellerTradeParty';
const BUYER = '//ram:BuyerTradeParty';

/** Builds, validates against the schema and the business rules, and returns the XML. */
async function buildValid(invoice: InvoiceDocument): Promise<string> {
  expect(xrechnungFormat.violations(invoice)).toEqual([]);
  const { xml } = xrechnungFormat.build(invoice);
  await expectSchemaValid(xml);
  expect(checkEn16931(xml)).toEqual([]);
  return xml;
}

describe('XRechnung document', () => {
  it('an invoice with two rates, a discount and hours: totals, breakdown, units, references', async () => {
    const xml = await buildValid(
      germanInvoice({
        lineSpecs: [
          { description: 'Druckerpapier A4', quantity: '4', unit: 'pcs', unitPriceNet: 12_50, discount: 5_00, discountLabel: 'Treuerabatt' },
          { description: 'Fachbuch', quantity: '2', unit: 'Stück', unitPriceNet: 19_95, rate: '0.07' },
          { description: 'Beratung', quantity: '2.5', unit: 'h', unitPriceNet: 80_00, productRef: null },
          { description: 'Versandpauschale', unit: null, unitPriceNet: 4_90 },
        ],
        notes: ['Vielen Dank für Ihren Auftrag.', 'Lieferung frei Haus.'],
        references: { originalInvoice: null, purchaseOrderRef: 'PO-2025-0042', contractRef: 'RV-7', deliveryDate: '2025-03-10' },
      }),
    );
    expect(valueAt(xml, '//rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID')).toBe(
      'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
    );
    expect(valueAt(xml, '//rsm:ExchangedDocumentContext/ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID')).toBe('urn:fdc:peppol.eu:2017:poacc:billing:01:1.0');
    expect(valueAt(xml, '//rsm:ExchangedDocument/ram:ID')).toBe('RE/2025/17');
    expect(valueAt(xml, '//rsm:ExchangedDocument/ram:TypeCode')).toBe('380');
    expect(valueAt(xml, '//rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString')).toBe('20250314');
    expect(valuesAt(xml, '//rsm:ExchangedDocument/ram:IncludedNote/ram:Content')).toEqual(['Vielen Dank für Ihren Auftrag.', 'Lieferung frei Haus.']);
    expect(valueAt(xml, '//ram:BuyerReference')).toBe('04011000-1234512345-06');
    expect(valueAt(xml, '//ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID')).toBe('PO-2025-0042');
    expect(valueAt(xml, '//ram:ContractReferencedDocument/ram:IssuerAssignedID')).toBe('RV-7');
    expect(valueAt(xml, '//ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime/udt:DateTimeString')).toBe('20250310');

    expect(valuesAt(xml, '//ram:BilledQuantity/@unitCode')).toEqual(['H87', 'H87', 'HUR', 'C62']);
    expect(valuesAt(xml, '//ram:BilledQuantity')).toEqual(['4', '2', '2.5', '1']);
    expect(valuesAt(xml, '//ram:NetPriceProductTradePrice/ram:ChargeAmount')).toEqual(['12.50', '19.95', '80.00', '4.90']);
    expect(valuesAt(xml, '//ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount')).toEqual(['45.00', '39.90', '200.00', '4.90']);
    expect(valuesAt(xml, '//ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedTradeProduct/ram:SellerAssignedID')).toEqual(['SKU-1', 'SKU-2', 'SKU-4']);
    expect(valuesAt(xml, '//ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge/ram:ActualAmount')).toEqual(['5.00']);
    expect(valuesAt(xml, '//ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge/ram:Reason')).toEqual(['Treuerabatt']);
    expect(valuesAt(xml, '//ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:RateApplicablePercent')).toEqual(['19', '7', '19', '19']);

    // 19 %: 45.00 + 200.00 + 4.90 = 249.90 -> 47.48; 7 %: 39.90 -> 2.79.
    expect(valuesAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:CategoryCode`)).toEqual(['S', 'S']);
    expect(valuesAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:RateApplicablePercent`)).toEqual(['19', '7']);
    expect(valuesAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:BasisAmount`)).toEqual(['249.90', '39.90']);
    expect(valuesAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:CalculatedAmount`)).toEqual(['47.48', '2.79']);
    expect(valueAt(xml, `${SUMMATION}/ram:LineTotalAmount`)).toBe('289.80');
    expect(valueAt(xml, `${SUMMATION}/ram:TaxBasisTotalAmount`)).toBe('289.80');
    expect(valueAt(xml, `${SUMMATION}/ram:TaxTotalAmount`)).toBe('50.27');
    expect(valueAt(xml, `${SUMMATION}/ram:TaxTotalAmount/@currencyID`)).toBe('EUR');
    expect(valueAt(xml, `${SUMMATION}/ram:GrandTotalAmount`)).toBe('340.07');
    expect(valueAt(xml, `${SUMMATION}/ram:DuePayableAmount`)).toBe('340.07');
  });

  it('the seller: name, contact BG-6, address, electronic address EM, VAT id and tax number; the buyer: VAT id and EM', async () => {
    const xml = await buildValid(germanInvoice());
    expect(valueAt(xml, `${SELLER}/ram:Name`)).toBe('Muster & Söhne GmbH');
    expect(valueAt(xml, `${SELLER}/ram:DefinedTradeContact/ram:PersonName`)).toBe('Erika Mustermann');
    expect(valueAt(xml, `${SELLER}/ram:DefinedTradeContact/ram:TelephoneUniversalCommunication/ram:CompleteNumber`)).toBe('+49 30 1234567');
    expect(valueAt(xml, `${SELLER}/ram:DefinedTradeContact/ram:EmailURIUniversalCommunication/ram:URIID`)).toBe('erika@muster-soehne.de');
    expect(valuesAt(xml, `${SELLER}/ram:PostalTradeAddress/*`)).toEqual(['10117', 'Friedrichstraße 10', 'Hinterhaus', 'Berlin', 'DE']);
    expect(valueAt(xml, `${SELLER}/ram:URIUniversalCommunication/ram:URIID`)).toBe('rechnungen@muster-soehne.de');
    expect(valueAt(xml, `${SELLER}/ram:URIUniversalCommunication/ram:URIID/@schemeID`)).toBe('EM');
    expect(valuesAt(xml, `${SELLER}/ram:SpecifiedTaxRegistration/ram:ID/@schemeID`)).toEqual(['VA', 'FC']);
    expect(valuesAt(xml, `${SELLER}/ram:SpecifiedTaxRegistration/ram:ID`)).toEqual(['DE123456789', '21/815/08150']);
    expect(valuesAt(xml, `${SELLER}/ram:ID`)).toEqual([]);
    expect(valueAt(xml, `${BUYER}/ram:Name`)).toBe('Stadtverwaltung Musterstadt');
    expect(valueAt(xml, `${BUYER}/ram:PostalTradeAddress/ram:CountrySubDivisionName`)).toBe('Bayern');
    expect(valueAt(xml, `${BUYER}/ram:URIUniversalCommunication/ram:URIID`)).toBe('eingangsrechnungen@musterstadt.de');
    expect(valuesAt(xml, `${BUYER}/ram:SpecifiedTaxRegistration/ram:ID`)).toEqual(['DE987654321']);
    expect(valuesAt(xml, `${BUYER}/ram:DefinedTradeContact`)).toEqual([]);
  });

  it('payment by SEPA transfer: code 58, the IBAN without spaces, the invoice number as remittance, due date and terms text', async () => {
    const xml = await buildValid(germanInvoice());
    expect(valueAt(xml, `${SETTLEMENT}/ram:PaymentReference`)).toBe('RE/2025/17');
    expect(valueAt(xml, `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode`)).toBe('58');
    expect(valueAt(xml, `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount/ram:IBANID`)).toBe('DE89370400440532013000');
    expect(valueAt(xml, `${SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString`)).toBe('20250413');
    expect(valueAt(xml, `${SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:Description`)).toBe('Zahlbar bis 13.04.2025');
  });

  it('no payment method and an IBAN is a SEPA transfer; installments are the terms text and the first is the due date', async () => {
    const base = germanInvoice();
    const half = base.totals.gross / 2;
    const xml = await buildValid({
      ...base,
      paymentTerms: {
        method: null,
        dueDate: null,
        iban: 'de89370400440532013000',
        installments: [
          { dueDate: '2025-05-13', amount: base.totals.gross - Math.floor(half) },
          { dueDate: '2025-04-13', amount: Math.floor(half) },
        ],
      },
    });
    expect(valueAt(xml, `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode`)).toBe('58');
    expect(valueAt(xml, `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount/ram:IBANID`)).toBe('DE89370400440532013000');
    expect(valueAt(xml, `${SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString`)).toBe('20250413');
    expect(valueAt(xml, `${SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:Description`)).toBe(
      '1. Rate: 89,19 EUR fällig am 13.04.2025; 2. Rate: 89,19 EUR fällig am 13.05.2025',
    );
  });

  it('cash: code 10, no account and no remittance information', async () => {
    const xml = await buildValid(germanInvoice({ paymentTerms: { method: 'Cash', dueDate: '2025-03-14', iban: null, installments: [] } }));
    expect(valueAt(xml, `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode`)).toBe('10');
    expect(valuesAt(xml, `${SETTLEMENT}//ram:PayeePartyCreditorFinancialAccount`)).toEqual([]);
    expect(valuesAt(xml, `${SETTLEMENT}/ram:PaymentReference`)).toEqual([]);
  });

  it('reverse charge (AE) to an Austrian business: rate 0, no tax, exemption reason and VATEX code', async () => {
    const xml = await buildValid(
      germanInvoice({
        buyer: { ...germanBuyer(), legalName: 'Bau GmbH Wien', vatId: 'ATU12345678', address: { line1: 'Ring 1', line2: null, city: 'Wien', state: null, postalCode: '1010', country: 'AT' } },
        lineSpecs: [{ description: 'Bauleistung', unit: 'h', quantity: '10', unitPriceNet: 65_00, rate: '0', category: 'AE' }],
      }),
    );
    expect(valuesAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:CategoryCode`)).toEqual(['AE']);
    expect(valueAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:RateApplicablePercent`)).toBe('0');
    expect(valueAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:CalculatedAmount`)).toBe('0.00');
    expect(valueAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:ExemptionReason`)).toBe('Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)');
    expect(valueAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:ExemptionReasonCode`)).toBe('VATEX-EU-AE');
    expect(valueAt(xml, `${BUYER}/ram:SpecifiedTaxRegistration/ram:ID`)).toBe('ATU12345678');
    expect(valueAt(xml, `${SUMMATION}/ram:GrandTotalAmount`)).toBe('650.00');
  });

  it('a VAT-exempt line (E) next to a standard one, from a seller known only by its tax number (BT-32, and BT-29 for BR-CO-26)', async () => {
    const xml = await buildValid(
      germanInvoice({
        seller: { ...germanSeller(), vatId: null },
        lineSpecs: [
          { description: 'Heilbehandlung', unitPriceNet: 120_00, rate: '0', category: 'E' },
          { description: 'Material', unitPriceNet: 10_00 },
        ],
      }),
    );
    expect(valuesAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:CategoryCode`)).toEqual(['E', 'S']);
    expect(valuesAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:ExemptionReason`)).toEqual(['Umsatzsteuerbefreit']);
    expect(valuesAt(xml, `${SELLER}/ram:SpecifiedTaxRegistration/ram:ID/@schemeID`)).toEqual(['FC']);
    expect(valueAt(xml, `${SELLER}/ram:ID`)).toBe('21/815/08150');
  });

  it('an intra-community supply (K) names where the goods went', async () => {
    const xml = await buildValid(
      germanInvoice({
        buyer: { ...germanBuyer(), legalName: 'Société Exemple SARL', vatId: 'FR40303265045', address: { line1: '1 rue de Rivoli', line2: null, city: 'Paris', state: null, postalCode: '75001', country: 'FR' } },
        lineSpecs: [{ description: 'Maschine', unitPriceNet: 15_000_00, rate: '0', category: 'K' }],
      }),
    );
    expect(valueAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:ExemptionReasonCode`)).toBe('VATEX-EU-IC');
    expect(valueAt(xml, '//ram:ShipToTradeParty/ram:PostalTradeAddress/ram:CountryID')).toBe('FR');
  });

  it('an export (G), a zero-rated supply (Z)', async () => {
    const swiss = { ...germanBuyer(), legalName: 'Beispiel AG', vatId: null, address: { line1: 'Bahnhofstrasse 1', line2: null, city: 'Zürich', state: null, postalCode: '8001', country: 'CH' } };
    const exportXml = await buildValid(germanInvoice({ buyer: swiss, lineSpecs: [{ unitPriceNet: 500_00, rate: '0', category: 'G' }] }));
    expect(valueAt(exportXml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:ExemptionReasonCode`)).toBe('VATEX-EU-G');
    const zeroXml = await buildValid(germanInvoice({ lineSpecs: [{ unitPriceNet: 3_000_00, rate: '0', category: 'Z' }, { unitPriceNet: 10_00 }] }));
    expect(valuesAt(zeroXml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:CategoryCode`)).toEqual(['Z', 'S']);
    expect(valuesAt(zeroXml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:ExemptionReason`)).toEqual([]);
  });

  it('not subject to VAT (O): no VAT identifiers on either side, no rate on the lines, rate 0 in the breakdown', async () => {
    const xml = await buildValid(germanInvoice({ lineSpecs: [{ description: 'Schadenersatz', unitPriceNet: 250_00, rate: '0', category: 'O' }] }));
    expect(valuesAt(xml, '//ram:SpecifiedTaxRegistration/ram:ID[@schemeID="VA"]')).toEqual([]);
    expect(valuesAt(xml, `${SELLER}/ram:SpecifiedTaxRegistration/ram:ID`)).toEqual(['21/815/08150']);
    expect(valuesAt(xml, '//ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:RateApplicablePercent')).toEqual([]);
    expect(valueAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:RateApplicablePercent`)).toBe('0');
    expect(valueAt(xml, `${SETTLEMENT}/ram:ApplicableTradeTax/ram:ExemptionReasonCode`)).toBe('VATEX-EU-O');
  });

  it('a credit note (381) names the invoice it corrects (BT-25, BT-26)', async () => {
    const xml = await buildValid(
      germanInvoice({
        documentType: 'credit_note',
        invoiceNumber: 'GS/2025/3',
        references: { originalInvoice: { invoiceNumber: 'RE/2025/17', issueDate: '2025-03-14' }, purchaseOrderRef: null, contractRef: null, deliveryDate: null },
      }),
    );
    expect(valueAt(xml, '//rsm:ExchangedDocument/ram:TypeCode')).toBe('381');
    expect(valueAt(xml, `${SETTLEMENT}/ram:InvoiceReferencedDocument/ram:IssuerAssignedID`)).toBe('RE/2025/17');
    expect(valueAt(xml, `${SETTLEMENT}/ram:InvoiceReferencedDocument/ram:FormattedIssueDateTime/qdt:DateTimeString`)).toBe('20250314');
    expect(valueAt(xml, `${SETTLEMENT}/ram:InvoiceReferencedDocument/ram:FormattedIssueDateTime/qdt:DateTimeString/@format`)).toBe('102');
  });

  it('a debit note is 383 with BT-25, which XRechnung only warns about (BR-DE-17); self-billing 389; deferred and simplified 380', async () => {
    const original = { invoiceNumber: 'RE/2025/17', issueDate: '2025-03-14' };
    const debit = xrechnungFormat.build(germanInvoice({ documentType: 'debit_note', references: { originalInvoice: original, purchaseOrderRef: null, contractRef: null, deliveryDate: null } })).xml;
    await expectSchemaValid(debit);
    expect(valueAt(debit, '//rsm:ExchangedDocument/ram:TypeCode')).toBe('383');
    expect(checkEn16931(debit)).toEqual([expect.objectContaining({ rule: 'BR-DE-17', flag: 'warning' })]);
    for (const [documentType, code] of [['self_invoice', '389'], ['deferred_invoice', '380'], ['simplified_invoice', '380']] as const) {
      const xml = await buildValid(germanInvoice({ documentType }));
      expect(valueAt(xml, '//rsm:ExchangedDocument/ram:TypeCode')).toBe(code);
    }
  });

  it('escapes markup in free text', async () => {
    const xml = await buildValid(germanInvoice({ notes: ['<b>Hinweis</b> & "Zitat"'], lineSpecs: [{ description: 'Kabel <5m> & Stecker', unitPriceNet: 9_99 }] }));
    expect(valueAt(xml, '//ram:IncludedNote/ram:Content')).toBe('<b>Hinweis</b> & "Zitat"');
    expect(valueAt(xml, '//ram:SpecifiedTradeProduct/ram:Name')).toBe('Kabel <5m> & Stecker');
  });

  it('leaves out blank optional text rather than write empty elements', async () => {
    const xml = await buildValid(
      germanInvoice({
        notes: ['', '  ', 'Danke'],
        lineSpecs: [{ unitPriceNet: 10_00, productRef: ' ', discount: 1_00, discountLabel: ' ' }],
        references: { originalInvoice: null, purchaseOrderRef: ' ', contractRef: '', deliveryDate: null },
        seller: { ...germanSeller(), email: ' rechnungen@muster-soehne.de ', address: { ...germanSeller().address, line2: ' ', state: '' } },
        buyer: { ...germanBuyer(), contact: { name: null, phone: null, email: ' ' } },
      }),
    );
    expect(valuesAt(xml, '//ram:IncludedNote/ram:Content')).toEqual(['Danke']);
    expect(valuesAt(xml, '//ram:SellerAssignedID')).toEqual([]);
    expect(valuesAt(xml, '//ram:BuyerOrderReferencedDocument | //ram:ContractReferencedDocument')).toEqual([]);
    expect(valuesAt(xml, '//ram:SpecifiedTradeAllowanceCharge/ram:Reason')).toEqual(['Rabatt']);
    expect(valueAt(xml, `${SELLER}/ram:URIUniversalCommunication/ram:URIID`)).toBe('rechnungen@muster-soehne.de');
    expect(valuesAt(xml, `${SELLER}/ram:PostalTradeAddress/ram:LineTwo | ${SELLER}/ram:PostalTradeAddress/ram:CountrySubDivisionName`)).toEqual([]);
    expect(valuesAt(xml, `${BUYER}/ram:DefinedTradeContact`)).toEqual([]);
  });

  it('file name and jurisdiction data', () => {
    const built = xrechnungFormat.build(germanInvoice({ invoiceNumber: 'RE/2025/17' }));
    expect(built.fileName).toBe('RE-2025-17.xml');
    expect(built.jurisdictionData).toEqual({ format: 'xrechnung-cii', customization_id: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0' });
    expect(built.xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  });

  it('refuses an invoice whose totals disagree with its lines, and one that violations reject', () => {
    const invoice = germanInvoice();
    expect(() => xrechnungFormat.build({ ...invoice, totals: { ...invoice.totals, gross: invoice.totals.gross + 1 } })).toThrow(/disagree/);
    expect(() => xrechnungFormat.build({ ...invoice, routing: { ...invoice.routing, buyerReference: null } })).toThrow(/routing\.buyer_reference/);
  });

  it('a line whose discount exceeds it, with a half cent of VAT, rounds the cent away from zero and passes the rules', () => {
    // Found by the property below: 7.5 x 0.05 less 0.88 is -0.50, and 19 % of it is -0.095.
    const invoice = germanInvoice({ lineSpecs: [{ quantity: '7.500', unitPriceNet: 5, discount: 88 }] });
    expect(invoice.vatBreakdown).toEqual([expect.objectContaining({ taxableAmount: -50, taxAmount: -10 })]);
    expect(xrechnungFormat.violations(invoice)).toEqual([]);
    expect(checkEn16931(xrechnungFormat.build(invoice).xml)).toEqual([]);
  });

  it('any mix of lines, rates, quantities and discounts gives exact totals that pass the business rules', async () => {
    const line = fc.record<LineSpec>({
      quantity: fc.oneof(fc.integer({ min: 1, max: 500 }).map(String), fc.integer({ min: 1, max: 99_999 }).map((n) => (n / 1000).toFixed(3))),
      unitPriceNet: fc.integer({ min: 0, max: 5_000_00 }),
      rate: fc.constantFrom('0.19', '0.07', '0.055', '0.16'),
      discount: fc.integer({ min: 0, max: 99 }),
      unit: fc.constantFrom('pcs', 'h', 'kg', 'm', 'Liter', 'Karton', null),
    });
    const invoices = fc.array(line, { minLength: 1, maxLength: 12 }).map((lineSpecs) => germanInvoice({ lineSpecs }));
    const samples: string[] = [];
    fc.assert(
      fc.property(invoices, (invoice) => {
        expect(xrechnungFormat.violations(invoice)).toEqual([]);
        const { xml } = xrechnungFormat.build(invoice);
        expect(checkEn16931(xml)).toEqual([]);
        if (samples.length < 5) samples.push(xml);
      }),
      { numRuns: 150 },
    );
    for (const xml of samples) await expectSchemaValid(xml);
  });
});
