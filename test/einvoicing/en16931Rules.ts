// An independent check of a CII invoice against the EN 16931 and XRechnung 3.0 business rules
// that an invoice built by this service can touch. No npm package ships the official
// Schematron (or its XSLT), so the rules are written here from their published texts, reading
// the XML with XPath only and sharing no code with the builder in src/einvoicing/xrechnung.
// It is no substitute for the official validator: it covers the rules listed here, and its
// reading of them is this project's.
//
// Covered: BR-01..BR-16, BR-21..BR-28, BR-41, BR-42, BR-45..BR-49, BR-55, BR-61..BR-63,
// BR-CO-04, BR-CO-09..BR-CO-18, BR-CO-25, BR-CO-26, BR-DEC (amounts), a subset of BR-CL,
// BR-S/Z/E/AE/IC/G/O-01, -02, -05, -08, -09, -10 (and BR-IC-11, BR-IC-12, BR-O-11, BR-O-12),
// BR-DE-1..BR-DE-11, BR-DE-14..BR-DE-19, BR-DE-21, BR-DE-23..BR-DE-25, BR-DE-27, BR-DE-28,
// PEPPOL-EN16931-R001, R007, R008, R010, R020, R120.
import { Decimal } from 'decimal.js';
import { parseXml, selectCii, type XmlNode } from '../support/ciiXpath.js';

export interface RuleFailure {
  rule: string;
  /** As the Schematron flags it: a fatal rule rejects the invoice, a warning does not. */
  flag: 'fatal' | 'warning';
  message: string;
}

const ROOT = '/rsm:CrossIndustryInvoice';
const TRANSACTION = `${ROOT}/rsm:SupplyChainTradeTransaction`;
const AGREEMENT = `${TRANSACTION}/ram:ApplicableHeaderTradeAgreement`;
const DELIVERY = `${TRANSACTION}/ram:ApplicableHeaderTradeDelivery`;
const SETTLEMENT = `${TRANSACTION}/ram:ApplicableHeaderTradeSettlement`;
const SUMMATION = `${SETTLEMENT}/ram:SpecifiedTradeSettlementHeaderMonetarySummation`;
const SELLER = `${AGREEMENT}/ram:SellerTradeParty`;
const BUYER = `${AGREEMENT}/ram:BuyerTradeParty`;
const LINES = `${TRANSACTION}/ram:IncludedSupplyChainTradeLineItem`;

const XRECHNUNG_3_0 = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';
/** UNTDID 1001 codes EN 16931 lists for invoices and credit notes (subset used for BR-CL-01). */
const DOCUMENT_TYPE_CODES = new Set(['71', '80', '81', '82', '84', '102', '130', '202', '203', '204', '211', '218', '219', '261', '262', '295', '296', '308', '325', '326', '331', '380', '381', '382', '383', '384', '385', '386', '387', '388', '389', '390', '393', '394', '395', '396', '420', '456', '457', '458', '527', '532', '553', '575', '623', '633', '751', '780', '817', '870', '875', '876', '877', '935']);
/** XRechnung's BR-DE-17 list. */
const XRECHNUNG_TYPE_CODES = new Set(['326', '380', '384', '389', '381', '875', '876', '877']);
const VAT_CATEGORIES = new Set(['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M']);
const PAYMENT_MEANS_CODES = new Set(['1', '10', '20', '30', '31', '42', '48', '49', '54', '55', '57', '58', '59', '68', '97', 'ZZZ']);
const VATEX_CODES = new Set(['VATEX-EU-AE', 'VATEX-EU-D', 'VATEX-EU-F', 'VATEX-EU-G', 'VATEX-EU-I', 'VATEX-EU-IC', 'VATEX-EU-O', 'VATEX-EU-J']);

class CiiDocument {
  readonly root: unknown;
  constructor(xml: string) {
    this.root = parseXml(xml);
  }
  nodes(expression: string, context: unknown = this.root): XmlNode[] {
    return selectCii(expression, context);
  }
  node(expression: string, context: unknown = this.root): XmlNode | undefined {
    return this.nodes(expression, context)[0];
  }
  /** The trimmed text of the first match, or null when there is none or it is blank. */
  text(expression: string, context: unknown = this.root): string | null {
    const found = this.node(expression, context);
    const value = found === undefined ? null : String(found.textContent ?? found.nodeValue ?? '').trim();
    return value ? value : null;
  }
  amount(expression: string, context: unknown = this.root): Decimal | null {
    const value = this.text(expression, context);
    return value === null ? null : new Decimal(value);
  }
  has(expression: string, context: unknown = this.root): boolean {
    return this.nodes(expression, context).length > 0;
  }
}

/** Two decimals as the Schematron's XPath round() gives them: a half goes towards positive infinity. */
const round2 = (value: Decimal) => value.toDecimalPlaces(2, Decimal.ROUND_HALF_CEIL);
/**
 * BT-117 as BR-CO-17 and BR-S-09 compute it: the Schematron rounds |BT-116| x rate (XPath's round,
 * half up) and compares |BT-117| with it, so on a signed amount the half cent goes away from zero
 * (-0.50 at 19 % is -0.10). This reading also requires BT-117 to carry BT-116's sign.
 */
const categoryTaxOf = (basis: Decimal, ratePercent: Decimal) => basis.times(ratePercent).dividedBy(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
const sum = (values: (Decimal | null)[]) => values.reduce<Decimal>((total, value) => total.plus(value ?? 0), new Decimal(0));
const ibanIsValid = (iban: string) => {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  const numeric = rearranged.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  return BigInt(numeric) % 97n === 1n;
};

interface LineFacts {
  node: XmlNode;
  category: string | null;
  rate: Decimal | null;
  net: Decimal | null;
}

interface BreakdownFacts {
  node: XmlNode;
  category: string | null;
  rate: Decimal | null;
  basis: Decimal | null;
  tax: Decimal | null;
  reason: string | null;
  reasonCode: string | null;
}

/** Every failed rule of the invoice, fatal ones and warnings. */
export function checkEn16931(xml: string): RuleFailure[] {
  const doc = new CiiDocument(xml);
  const failures: RuleFailure[] = [];
  const fatal = (rule: string, ok: boolean, message: string) => {
    if (!ok) failures.push({ rule, flag: 'fatal', message });
  };
  const warning = (rule: string, ok: boolean, message: string) => {
    if (!ok) failures.push({ rule, flag: 'warning', message });
  };

  // Document level: BR-01 .. BR-16.
  const specification = doc.text(`${ROOT}/rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID`);
  fatal('BR-01', specification !== null, 'Specification identifier (BT-24) missing');
  warning('BR-DE-21', specification === XRECHNUNG_3_0, `BT-24 should be ${XRECHNUNG_3_0}`);
  const process = doc.text(`${ROOT}/rsm:ExchangedDocumentContext/ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID`);
  fatal('PEPPOL-EN16931-R001', process !== null, 'Business process (BT-23) missing');
  fatal('PEPPOL-EN16931-R007', process === null || /^urn:fdc:peppol\.eu:2017:poacc:billing:(\d{2}):1\.0$/.test(process), 'Business process (BT-23) not in the Peppol format');
  fatal('BR-02', doc.text(`${ROOT}/rsm:ExchangedDocument/ram:ID`) !== null, 'Invoice number (BT-1) missing');
  const issueDate = doc.text(`${ROOT}/rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString`);
  fatal('BR-03', issueDate !== null, 'Issue date (BT-2) missing');
  fatal('CII date format', issueDate === null || (doc.text(`${ROOT}/rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString/@format`) === '102' && /^\d{8}$/.test(issueDate)), 'Dates use format 102');
  const typeCode = doc.text(`${ROOT}/rsm:ExchangedDocument/ram:TypeCode`);
  fatal('BR-04', typeCode !== null, 'Invoice type code (BT-3) missing');
  fatal('BR-CL-01', typeCode === null || DOCUMENT_TYPE_CODES.has(typeCode), `Type code ${typeCode} not in UNTDID 1001`);
  warning('BR-DE-17', typeCode === null || XRECHNUNG_TYPE_CODES.has(typeCode), `Type code ${typeCode} should be one of ${[...XRECHNUNG_TYPE_CODES].join(', ')}`);
  const currency = doc.text(`${SETTLEMENT}/ram:InvoiceCurrencyCode`);
  fatal('BR-05', currency !== null, 'Invoice currency (BT-5) missing');
  fatal('BR-CL-04', currency === null || /^[A-Z]{3}$/.test(currency), 'Currency not an ISO 4217 code');
  fatal('BR-06', doc.text(`${SELLER}/ram:Name`) !== null, 'Seller name (BT-27) missing');
  fatal('BR-07', doc.text(`${BUYER}/ram:Name`) !== null, 'Buyer name (BT-44) missing');
  fatal('BR-08', doc.has(`${SELLER}/ram:PostalTradeAddress`), 'Seller postal address (BG-5) missing');
  fatal('BR-09', /^[A-Z]{2}$/.test(doc.text(`${SELLER}/ram:PostalTradeAddress/ram:CountryID`) ?? ''), 'Seller country code (BT-40) missing or not ISO 3166-1');
  fatal('BR-10', doc.has(`${BUYER}/ram:PostalTradeAddress`), 'Buyer postal address (BG-8) missing');
  fatal('BR-11', /^[A-Z]{2}$/.test(doc.text(`${BUYER}/ram:PostalTradeAddress/ram:CountryID`) ?? ''), 'Buyer country code (BT-55) missing or not ISO 3166-1');
  const lineTotal = doc.amount(`${SUMMATION}/ram:LineTotalAmount`);
  const taxBasisTotal = doc.amount(`${SUMMATION}/ram:TaxBasisTotalAmount`);
  const grandTotal = doc.amount(`${SUMMATION}/ram:GrandTotalAmount`);
  const duePayable = doc.amount(`${SUMMATION}/ram:DuePayableAmount`);
  fatal('BR-12', lineTotal !== null, 'Sum of line net amounts (BT-106) missing');
  fatal('BR-13', taxBasisTotal !== null, 'Total without VAT (BT-109) missing');
  fatal('BR-14', grandTotal !== null, 'Total with VAT (BT-112) missing');
  fatal('BR-15', duePayable !== null, 'Amount due (BT-115) missing');
  const lineNodes = doc.nodes(LINES);
  fatal('BR-16', lineNodes.length > 0, 'No invoice line (BG-25)');

  // Lines: BR-21 .. BR-28, BR-41, BR-42, BR-CO-04.
  const lines: LineFacts[] = lineNodes.map((line) => {
    const id = doc.text('ram:AssociatedDocumentLineDocument/ram:LineID', line);
    fatal('BR-21', id !== null, 'Line identifier (BT-126) missing');
    fatal('BR-22', doc.text('ram:SpecifiedLineTradeDelivery/ram:BilledQuantity', line) !== null, `Line ${id}: quantity (BT-129) missing`);
    const unit = doc.text('ram:SpecifiedLineTradeDelivery/ram:BilledQuantity/@unitCode', line);
    fatal('BR-23', unit !== null, `Line ${id}: unit of measure (BT-130) missing`);
    fatal('BR-CL-23', unit === null || /^[A-Z0-9]{2,3}$/.test(unit), `Line ${id}: unit ${unit} not a Rec 20/21 code`);
    const net = doc.amount('ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount', line);
    fatal('BR-24', net !== null, `Line ${id}: net amount (BT-131) missing`);
    fatal('BR-25', doc.text('ram:SpecifiedTradeProduct/ram:Name', line) !== null, `Line ${id}: item name (BT-153) missing`);
    const price = doc.amount('ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount', line);
    fatal('BR-26', price !== null, `Line ${id}: net price (BT-146) missing`);
    fatal('BR-27', price === null || !price.isNegative(), `Line ${id}: net price (BT-146) negative`);
    const grossPrice = doc.amount('ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:ChargeAmount', line);
    fatal('BR-28', grossPrice === null || !grossPrice.isNegative(), `Line ${id}: gross price (BT-148) negative`);
    for (const allowance of doc.nodes("ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge[ram:ChargeIndicator/udt:Indicator='false']", line)) {
      fatal('BR-41', doc.amount('ram:ActualAmount', allowance) !== null, `Line ${id}: allowance amount (BT-136) missing`);
      fatal('BR-42', doc.text('ram:Reason', allowance) !== null || doc.text('ram:ReasonCode', allowance) !== null, `Line ${id}: allowance reason (BT-139/BT-140) missing`);
    }
    const quantity = doc.amount('ram:SpecifiedLineTradeDelivery/ram:BilledQuantity', line);
    const baseQuantity = doc.amount('ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity', line) ?? new Decimal(1);
    const lineAllowances = sum(doc.nodes("ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge[ram:ChargeIndicator/udt:Indicator='false']/ram:ActualAmount", line).map((n) => new Decimal(n.textContent ?? 0)));
    const lineCharges = sum(doc.nodes("ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge[ram:ChargeIndicator/udt:Indicator='true']/ram:ActualAmount", line).map((n) => new Decimal(n.textContent ?? 0)));
    if (quantity !== null && price !== null && net !== null) {
      const expected = round2(quantity.times(price).dividedBy(baseQuantity)).plus(lineCharges).minus(lineAllowances);
      fatal('PEPPOL-EN16931-R120', net.eq(expected), `Line ${id}: net amount ${net} is not quantity x price + charges - allowances (${expected})`);
    }
    const category = doc.text("ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax[ram:TypeCode='VAT']/ram:CategoryCode", line);
    fatal('BR-CO-04', category !== null, `Line ${id}: VAT category (BT-151) missing`);
    fatal('BR-CL-18', category === null || VAT_CATEGORIES.has(category), `Line ${id}: VAT category ${category} not in UNCL 5305`);
    const rate = doc.amount("ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax[ram:TypeCode='VAT']/ram:RateApplicablePercent", line);
    return { node: line, category, rate, net };
  });

  // VAT breakdown: BR-CO-17, BR-CO-18, BR-DE-14.
  const breakdown: BreakdownFacts[] = doc.nodes(`${SETTLEMENT}/ram:ApplicableTradeTax`).map((node) => ({
    node,
    category: doc.text('ram:CategoryCode', node),
    rate: doc.amount('ram:RateApplicablePercent', node),
    basis: doc.amount('ram:BasisAmount', node),
    tax: doc.amount('ram:CalculatedAmount', node),
    reason: doc.text('ram:ExemptionReason', node),
    reasonCode: doc.text('ram:ExemptionReasonCode', node),
  }));
  fatal('BR-CO-18', breakdown.length > 0, 'No VAT breakdown (BG-23)');
  for (const entry of breakdown) {
    fatal('BR-45', entry.basis !== null, 'VAT category taxable amount (BT-116) missing');
    fatal('BR-46', entry.tax !== null, 'VAT category tax amount (BT-117) missing');
    fatal('BR-47', entry.category !== null, 'VAT category code (BT-118) missing');
    fatal('BR-48', entry.rate !== null || entry.category === 'O', `VAT breakdown ${entry.category}: rate (BT-119) missing`);
    fatal('BR-DE-14', entry.rate !== null, `VAT breakdown ${entry.category}: rate (BT-119) missing`);
    if (entry.rate !== null && entry.basis !== null && entry.tax !== null) {
      fatal('BR-CO-17', entry.tax.eq(categoryTaxOf(entry.basis, entry.rate)), `VAT breakdown ${entry.category} ${entry.rate}%: ${entry.tax} is not ${entry.basis} x rate`);
    }
    fatal('BR-CL-22', entry.reasonCode === null || VATEX_CODES.has(entry.reasonCode), `Exemption reason code ${entry.reasonCode} not in the VATEX list`);
  }

  // Totals: BR-CO-10 .. BR-CO-16.
  const allowanceTotal = doc.amount(`${SUMMATION}/ram:AllowanceTotalAmount`);
  const chargeTotal = doc.amount(`${SUMMATION}/ram:ChargeTotalAmount`);
  const documentAllowances = sum(doc.nodes(`${SETTLEMENT}/ram:SpecifiedTradeAllowanceCharge[ram:ChargeIndicator/udt:Indicator='false']/ram:ActualAmount`).map((n) => new Decimal(n.textContent ?? 0)));
  const documentCharges = sum(doc.nodes(`${SETTLEMENT}/ram:SpecifiedTradeAllowanceCharge[ram:ChargeIndicator/udt:Indicator='true']/ram:ActualAmount`).map((n) => new Decimal(n.textContent ?? 0)));
  const taxTotalNodes = doc.nodes(`${SUMMATION}/ram:TaxTotalAmount[@currencyID='${currency}']`);
  const taxTotal = taxTotalNodes.length ? new Decimal(taxTotalNodes[0].textContent ?? 0) : null;
  const prepaid = doc.amount(`${SUMMATION}/ram:TotalPrepaidAmount`) ?? new Decimal(0);
  const rounding = doc.amount(`${SUMMATION}/ram:RoundingAmount`) ?? new Decimal(0);
  if (lineTotal !== null) fatal('BR-CO-10', lineTotal.eq(sum(lines.map((line) => line.net))), `BT-106 ${lineTotal} is not the sum of the line net amounts`);
  fatal('BR-CO-11', (allowanceTotal ?? new Decimal(0)).eq(documentAllowances), 'BT-107 is not the sum of the document allowances');
  fatal('BR-CO-12', (chargeTotal ?? new Decimal(0)).eq(documentCharges), 'BT-108 is not the sum of the document charges');
  if (lineTotal !== null && taxBasisTotal !== null) {
    fatal('BR-CO-13', taxBasisTotal.eq(lineTotal.minus(allowanceTotal ?? 0).plus(chargeTotal ?? 0)), `BT-109 ${taxBasisTotal} is not BT-106 - BT-107 + BT-108`);
  }
  fatal('BR-CO-14', taxTotal !== null && taxTotal.eq(sum(breakdown.map((entry) => entry.tax))), 'BT-110 (in the invoice currency) is not the sum of the VAT category tax amounts');
  if (taxBasisTotal !== null && grandTotal !== null) fatal('BR-CO-15', grandTotal.eq(taxBasisTotal.plus(taxTotal ?? 0)), `BT-112 ${grandTotal} is not BT-109 + BT-110`);
  if (grandTotal !== null && duePayable !== null) fatal('BR-CO-16', duePayable.eq(grandTotal.minus(prepaid).plus(rounding)), `BT-115 ${duePayable} is not BT-112 - BT-113 + BT-114`);

  // BR-DEC: amounts have at most two decimals (prices and quantities may have more).
  const amountPaths = [
    ...['LineTotalAmount', 'ChargeTotalAmount', 'AllowanceTotalAmount', 'TaxBasisTotalAmount', 'TaxTotalAmount', 'RoundingAmount', 'GrandTotalAmount', 'TotalPrepaidAmount', 'DuePayableAmount'].map((name) => `${SUMMATION}/ram:${name}`),
    `${SETTLEMENT}/ram:ApplicableTradeTax/ram:CalculatedAmount`,
    `${SETTLEMENT}/ram:ApplicableTradeTax/ram:BasisAmount`,
    `${LINES}/ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount`,
    `${LINES}/ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge/ram:ActualAmount`,
  ];
  for (const path of amountPaths) {
    for (const node of doc.nodes(path)) {
      fatal('BR-DEC', /^-?\d+(\.\d{1,2})?$/.test(String(node.textContent).trim()), `${node.localName} ${node.textContent} has more than two decimals`);
    }
  }

  // Parties: BR-CO-09, BR-CO-26, BR-62, BR-63, electronic addresses.
  for (const id of doc.nodes(`${AGREEMENT}//ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']`)) {
    fatal('BR-CO-09', /^[A-Z]{2}/.test(String(id.textContent)), `VAT identifier ${id.textContent} has no country prefix`);
  }
  const sellerVatId = doc.text(`${SELLER}/ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']`);
  const sellerTaxNumber = doc.text(`${SELLER}/ram:SpecifiedTaxRegistration/ram:ID[@schemeID='FC']`);
  const buyerVatId = doc.text(`${BUYER}/ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']`);
  const hasTaxRepresentative = doc.has(`${AGREEMENT}/ram:SellerTaxRepresentativeTradeParty`);
  const sellerIdentified = doc.text(`${SELLER}/ram:ID`) !== null || doc.text(`${SELLER}/ram:GlobalID`) !== null || doc.text(`${SELLER}/ram:SpecifiedLegalOrganization/ram:ID`) !== null || sellerVatId !== null;
  fatal('BR-CO-26', sellerIdentified, 'Seller identifier (BT-29), legal registration (BT-30) or VAT identifier (BT-31) missing');
  const sellerAddress = doc.node(`${SELLER}/ram:URIUniversalCommunication/ram:URIID`);
  const buyerAddress = doc.node(`${BUYER}/ram:URIUniversalCommunication/ram:URIID`);
  fatal('PEPPOL-EN16931-R020', sellerAddress !== undefined, 'Seller electronic address (BT-34) missing');
  fatal('PEPPOL-EN16931-R010', buyerAddress !== undefined, 'Buyer electronic address (BT-49) missing');
  fatal('BR-62', sellerAddress === undefined || doc.text('@schemeID', sellerAddress) !== null, 'Seller electronic address has no scheme (BT-34-1)');
  fatal('BR-63', buyerAddress === undefined || doc.text('@schemeID', buyerAddress) !== null, 'Buyer electronic address has no scheme (BT-49-1)');

  // Payment: BR-49, BR-61, BR-CO-25, BR-DE-1, BR-DE-18, BR-DE-19, BR-DE-23 .. BR-DE-25.
  const means = doc.nodes(`${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans`);
  fatal('BR-DE-1', means.length > 0, 'Payment instructions (BG-16) missing');
  for (const entry of means) {
    const code = doc.text('ram:TypeCode', entry);
    fatal('BR-49', code !== null, 'Payment means type code (BT-81) missing');
    fatal('BR-CL-16', code === null || PAYMENT_MEANS_CODES.has(code), `Payment means code ${code} not in UNTDID 4461`);
    const hasAccount = doc.has('ram:PayeePartyCreditorFinancialAccount', entry);
    const hasCard = doc.has('ram:ApplicableTradeSettlementFinancialCard', entry);
    const hasDebit = doc.has('ram:PayerPartyDebtorFinancialAccount', entry);
    if (code === '30' || code === '58') {
      const iban = doc.text('ram:PayeePartyCreditorFinancialAccount/ram:IBANID', entry);
      fatal('BR-61', iban !== null || doc.text('ram:PayeePartyCreditorFinancialAccount/ram:ProprietaryID', entry) !== null, 'Credit transfer without payment account (BT-84)');
      fatal('BR-DE-23-a', hasAccount, 'Credit transfer without BG-17');
      fatal('BR-DE-23-b', !hasCard && !hasDebit, 'Credit transfer with card or direct debit information');
      if (code === '58') warning('BR-DE-19', iban !== null && ibanIsValid(iban), `IBAN ${iban} is not valid`);
    }
    if (code === '48' || code === '54' || code === '55') {
      fatal('BR-DE-24-a', hasCard, 'Card payment without BG-18');
      fatal('BR-DE-24-b', !hasAccount && !hasDebit, 'Card payment with transfer or direct debit information');
    }
    if (code === '59') {
      fatal('BR-DE-25-a', hasDebit, 'Direct debit without BG-19');
      fatal('BR-DE-25-b', !hasAccount && !hasCard, 'Direct debit with transfer or card information');
    }
  }
  const dueDate = doc.text(`${SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString`);
  const termsText = doc.text(`${SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:Description`);
  if (duePayable !== null && duePayable.gt(0)) fatal('BR-CO-25', dueDate !== null || termsText !== null, 'Amount due without due date (BT-9) or payment terms (BT-20)');
  fatal('BR-DE-18', termsText === null || !termsText.startsWith('#') || /^(#SKONTO#TAGE=\d+#PROZENT=\d+\.\d{2}(#BASISBETRAG=-?\d+\.\d{2})?#\n?)+$/.test(termsText), 'Payment terms text starting with # is not in the Skonto format');

  // Preceding invoice: BR-55.
  for (const reference of doc.nodes(`${SETTLEMENT}/ram:InvoiceReferencedDocument`)) {
    fatal('BR-55', doc.text('ram:IssuerAssignedID', reference) !== null, 'Preceding invoice reference (BT-25) missing');
  }

  // XRechnung: BR-DE-2 .. BR-DE-11, BR-DE-15, BR-DE-16, BR-DE-27, BR-DE-28.
  const contact = doc.node(`${SELLER}/ram:DefinedTradeContact`);
  fatal('BR-DE-2', contact !== undefined, 'Seller contact (BG-6) missing');
  fatal('BR-DE-3', doc.text(`${SELLER}/ram:PostalTradeAddress/ram:CityName`) !== null, 'Seller city (BT-37) missing');
  fatal('BR-DE-4', doc.text(`${SELLER}/ram:PostalTradeAddress/ram:PostcodeCode`) !== null, 'Seller post code (BT-38) missing');
  const phone = contact ? doc.text('ram:TelephoneUniversalCommunication/ram:CompleteNumber', contact) : null;
  const email = contact ? doc.text('ram:EmailURIUniversalCommunication/ram:URIID', contact) : null;
  fatal('BR-DE-5', contact !== undefined && (doc.text('ram:PersonName', contact) !== null || doc.text('ram:DepartmentName', contact) !== null), 'Seller contact point (BT-41) missing');
  fatal('BR-DE-6', phone !== null, 'Seller contact telephone (BT-42) missing');
  fatal('BR-DE-7', email !== null, 'Seller contact e-mail (BT-43) missing');
  warning('BR-DE-27', phone === null || (phone.match(/[0-9]/g) ?? []).length >= 3, 'Seller contact telephone has fewer than three digits');
  warning('BR-DE-28', email === null || (/^[^@\s]+@[^@\s]+$/.test(email) && !/(^\.|\.$|\.@|@\.)/.test(email)), `Seller contact e-mail ${email} is malformed`);
  fatal('BR-DE-8', doc.text(`${BUYER}/ram:PostalTradeAddress/ram:CityName`) !== null, 'Buyer city (BT-52) missing');
  fatal('BR-DE-9', doc.text(`${BUYER}/ram:PostalTradeAddress/ram:PostcodeCode`) !== null, 'Buyer post code (BT-53) missing');
  const shipTo = doc.node(`${DELIVERY}/ram:ShipToTradeParty/ram:PostalTradeAddress`);
  if (shipTo) {
    fatal('BR-DE-10', doc.text('ram:CityName', shipTo) !== null, 'Deliver-to city (BT-77) missing');
    fatal('BR-DE-11', doc.text('ram:PostcodeCode', shipTo) !== null, 'Deliver-to post code (BT-78) missing');
  }
  fatal('BR-DE-15', doc.text(`${AGREEMENT}/ram:BuyerReference`) !== null, 'Buyer reference (BT-10) missing');
  const categoriesInUse = new Set(lines.map((line) => line.category));
  if (['S', 'Z', 'E', 'AE', 'K', 'G', 'L', 'M'].some((category) => categoriesInUse.has(category))) {
    fatal('BR-DE-16', sellerVatId !== null || sellerTaxNumber !== null || hasTaxRepresentative, 'Seller VAT identifier (BT-31), tax number (BT-32) or tax representative (BG-11) missing');
  }

  // Per VAT category: BR-<X>-01, -02, -05, -08, -09, -10.
  const deliveryDate = doc.text(`${DELIVERY}/ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime/udt:DateTimeString`);
  const billingPeriod = doc.has(`${SETTLEMENT}/ram:BillingSpecifiedPeriod`);
  const checkCategory = (category: string, prefix: string) => {
    const categoryLines = lines.filter((line) => line.category === category);
    const entries = breakdown.filter((entry) => entry.category === category);
    if (categoryLines.length === 0) {
      fatal(`${prefix}-01`, entries.length === 0, `VAT breakdown ${category} without lines in that category`);
      return;
    }
    if (category === 'S') fatal('BR-S-01', entries.length >= 1, 'Standard-rated lines without an S VAT breakdown');
    else fatal(`${prefix}-01`, entries.length === 1, `Lines in category ${category} need exactly one ${category} VAT breakdown, found ${entries.length}`);
    for (const line of categoryLines) {
      if (category === 'S') fatal('BR-S-05', line.rate !== null && line.rate.gt(0), 'Standard-rated line with a rate not above 0');
      else if (category === 'O') fatal('BR-O-05', line.rate === null, 'Line not subject to VAT carries a rate');
      else fatal(`${prefix}-05`, line.rate !== null && line.rate.isZero(), `Line in category ${category} with a rate other than 0`);
    }
    for (const entry of entries) {
      const matching = categoryLines.filter((line) => category === 'O' || (line.rate !== null && entry.rate !== null && line.rate.eq(entry.rate)));
      fatal(`${prefix}-08`, entry.basis !== null && entry.basis.eq(sum(matching.map((line) => line.net))), `VAT breakdown ${category} ${entry.rate}%: taxable amount is not the sum of its lines`);
      if (category === 'S') {
        fatal('BR-S-09', entry.tax !== null && entry.basis !== null && entry.rate !== null && entry.tax.eq(categoryTaxOf(entry.basis, entry.rate)), 'S tax amount is not taxable x rate');
        fatal('BR-S-10', entry.reason === null && entry.reasonCode === null, 'S VAT breakdown with an exemption reason');
      } else if (category === 'Z') {
        fatal('BR-Z-09', entry.tax !== null && entry.tax.isZero(), 'Z tax amount not 0');
        fatal('BR-Z-10', entry.reason === null && entry.reasonCode === null, 'Z VAT breakdown with an exemption reason');
      } else {
        fatal(`${prefix}-09`, entry.tax !== null && entry.tax.isZero(), `${category} tax amount not 0`);
        fatal(`${prefix}-10`, entry.reason !== null || entry.reasonCode !== null, `${category} VAT breakdown without exemption reason`);
        if (category !== 'O') fatal(`${prefix} breakdown rate`, entry.rate !== null && entry.rate.isZero(), `${category} VAT breakdown rate not 0`);
      }
    }
    if (category === 'S' || category === 'Z' || category === 'E') {
      fatal(`${prefix}-02`, sellerVatId !== null || sellerTaxNumber !== null || hasTaxRepresentative, `Lines in category ${category} without seller VAT identifier or tax number`);
    }
    if (category === 'AE') fatal('BR-AE-02', (sellerVatId !== null || hasTaxRepresentative) && (buyerVatId !== null || doc.text(`${BUYER}/ram:SpecifiedLegalOrganization/ram:ID`) !== null), 'Reverse charge needs seller and buyer VAT identifiers');
    if (category === 'K') {
      fatal('BR-IC-02', (sellerVatId !== null || hasTaxRepresentative) && buyerVatId !== null, 'Intra-community supply needs seller and buyer VAT identifiers');
      fatal('BR-IC-11', deliveryDate !== null || billingPeriod, 'Intra-community supply without delivery date or invoicing period');
      fatal('BR-IC-12', doc.text(`${DELIVERY}/ram:ShipToTradeParty/ram:PostalTradeAddress/ram:CountryID`) !== null, 'Intra-community supply without deliver-to country (BT-80)');
    }
    if (category === 'G') fatal('BR-G-02', sellerVatId !== null || hasTaxRepresentative, 'Export needs the seller VAT identifier');
    if (category === 'O') {
      fatal('BR-O-02', sellerVatId === null && buyerVatId === null && !hasTaxRepresentative, 'Not subject to VAT, yet VAT identifiers are shown');
      fatal('BR-O-11', breakdown.every((other) => other.category === 'O'), 'Not subject to VAT alongside other VAT breakdowns');
      fatal('BR-O-12', lines.every((other) => other.category === 'O'), 'Not subject to VAT alongside lines in other categories');
    }
  };
  for (const [category, prefix] of [['S', 'BR-S'], ['Z', 'BR-Z'], ['E', 'BR-E'], ['AE', 'BR-AE'], ['K', 'BR-IC'], ['G', 'BR-G'], ['O', 'BR-O']] as const) {
    checkCategory(category, prefix);
  }

  // PEPPOL-EN16931-R008: no empty elements.
  for (const element of doc.nodes('//*[not(*) and normalize-space(.) = ""]')) {
    fatal('PEPPOL-EN16931-R008', false, `Empty element ${element.nodeName}`);
  }
  return failures;
}
