// The business-rule checker the document tests rely on must see a broken rule when there is
// one: each case breaks a valid document by hand and expects the rule to fail.
import { describe, expect, it } from 'vitest';
import { xrechnungFormat } from '../../src/einvoicing/xrechnung/index.js';
import { germanBuyer, germanInvoice, germanSeller } from '../support/xrechnungInvoices.js';
import { checkEn16931 } from './en16931Rules.js';

const standard = xrechnungFormat.build(germanInvoice()).xml;
const oneLine = xrechnungFormat.build(germanInvoice({ lineSpecs: [{ unitPriceNet: 100_00 }] })).xml;
const reverseCharge = xrechnungFormat.build(
  germanInvoice({
    buyer: { ...germanBuyer(), vatId: 'ATU12345678', address: { ...germanBuyer().address, country: 'AT' } },
    lineSpecs: [{ unitPriceNet: 100_00, rate: '0', category: 'AE' }],
  }),
).xml;
const notSubjectToVat = xrechnungFormat.build(germanInvoice({ lineSpecs: [{ unitPriceNet: 100_00, rate: '0', category: 'O' }] })).xml;
const intraCommunity = xrechnungFormat.build(
  germanInvoice({ buyer: { ...germanBuyer(), vatId: 'FR40303265045', address: { ...germanBuyer().address, country: 'FR' } }, lineSpecs: [{ unitPriceNet: 100_00, rate: '0', category: 'K' }] }),
).xml;

/** Replaces exactly one occurrence, so that a case fails loudly when the document's shape changes. */
function edit(xml: string, search: string | RegExp, replacement: string): string {
  const count = typeof search === 'string' ? xml.split(search).length - 1 : (xml.match(new RegExp(search.source, `${search.flags.replace('g', '')}g`)) ?? []).length;
  expect(count, `${search} occurs once`).toBe(1);
  return xml.replace(search, replacement);
}

const rulesOf = (xml: string) => checkEn16931(xml).map((failure) => failure.rule);

describe('the EN 16931 / XRechnung rule checker', () => {
  it('passes the valid documents it is given', () => {
    for (const xml of [standard, reverseCharge, notSubjectToVat, intraCommunity]) expect(checkEn16931(xml)).toEqual([]);
  });

  it.each([
    ['BR-CO-16', () => edit(standard, /<ram:DuePayableAmount>[^<]+</, '<ram:DuePayableAmount>1.00<')],
    ['BR-CO-15', () => edit(standard, /<ram:GrandTotalAmount>[^<]+</, '<ram:GrandTotalAmount>1.00<')],
    ['BR-CO-13', () => edit(standard, /<ram:TaxBasisTotalAmount>[^<]+</, '<ram:TaxBasisTotalAmount>1.00<')],
    ['BR-CO-10', () => edit(standard, '<ram:LineTotalAmount>50.00</ram:LineTotalAmount>', '<ram:LineTotalAmount>50.01</ram:LineTotalAmount>')],
    ['BR-S-08', () => edit(standard, '<ram:LineTotalAmount>50.00</ram:LineTotalAmount>', '<ram:LineTotalAmount>50.01</ram:LineTotalAmount>')],
    ['BR-CO-17', () => edit(standard, /<ram:CalculatedAmount>[^<]+</, '<ram:CalculatedAmount>28.49<')],
    ['BR-CO-14', () => edit(standard, /<ram:CalculatedAmount>[^<]+</, '<ram:CalculatedAmount>28.49<')],
    ['BR-CO-14', () => edit(standard, 'currencyID="EUR"', 'currencyID="USD"')],
    ['BR-DEC', () => edit(standard, /<ram:LineTotalAmount>149.90</, '<ram:LineTotalAmount>149.900<')],
    ['BR-DE-15', () => edit(standard, /<ram:BuyerReference>[^<]+<\/ram:BuyerReference>/, '')],
    ['BR-DE-2', () => edit(standard, /<ram:DefinedTradeContact>[\s\S]*?<\/ram:DefinedTradeContact>/, '')],
    ['BR-DE-5', () => edit(standard, /<ram:PersonName>[^<]+<\/ram:PersonName>/, '')],
    ['BR-DE-6', () => edit(standard, /<ram:TelephoneUniversalCommunication>[\s\S]*?<\/ram:TelephoneUniversalCommunication>/, '')],
    ['BR-DE-27', () => edit(standard, '+49 30 1234567', '+49')],
    ['BR-DE-7', () => edit(standard, /<ram:EmailURIUniversalCommunication>[\s\S]*?<\/ram:EmailURIUniversalCommunication>/, '')],
    ['BR-DE-28', () => edit(standard, 'erika@muster-soehne.de', 'erika.@muster-soehne.de')],
    ['BR-DE-3', () => edit(standard, '<ram:CityName>Berlin</ram:CityName>', '')],
    ['BR-DE-9', () => edit(standard, '<ram:PostcodeCode>80331</ram:PostcodeCode>', '')],
    ['PEPPOL-EN16931-R020', () => edit(standard, /<ram:URIUniversalCommunication>\s*<ram:URIID schemeID="EM">rechnungen[\s\S]*?<\/ram:URIUniversalCommunication>/, '')],
    ['PEPPOL-EN16931-R010', () => edit(standard, /<ram:URIUniversalCommunication>\s*<ram:URIID schemeID="EM">eingang[\s\S]*?<\/ram:URIUniversalCommunication>/, '')],
    ['BR-62', () => edit(standard, '<ram:URIID schemeID="EM">rechnungen', '<ram:URIID>rechnungen')],
    ['BR-DE-1', () => edit(standard, /<ram:SpecifiedTradeSettlementPaymentMeans>[\s\S]*?<\/ram:SpecifiedTradeSettlementPaymentMeans>/, '')],
    ['BR-61', () => edit(standard, /<ram:PayeePartyCreditorFinancialAccount>[\s\S]*?<\/ram:PayeePartyCreditorFinancialAccount>/, '')],
    ['BR-DE-23-a', () => edit(standard, /<ram:PayeePartyCreditorFinancialAccount>[\s\S]*?<\/ram:PayeePartyCreditorFinancialAccount>/, '')],
    ['BR-DE-19', () => edit(standard, 'DE89370400440532013000', 'DE89370400440532013001')],
    ['BR-CO-25', () => edit(standard, /<ram:SpecifiedTradePaymentTerms>[\s\S]*?<\/ram:SpecifiedTradePaymentTerms>/, '')],
    ['BR-DE-18', () => edit(standard, 'Zahlbar bis 13.04.2025', '#SKONTO#3%')],
    ['BR-DE-17', () => edit(standard, '<ram:TypeCode>380</ram:TypeCode>', '<ram:TypeCode>383</ram:TypeCode>')],
    ['BR-CL-01', () => edit(standard, '<ram:TypeCode>380</ram:TypeCode>', '<ram:TypeCode>999</ram:TypeCode>')],
    ['BR-DE-21', () => edit(standard, 'xrechnung_3.0', 'xrechnung_2.3')],
    ['PEPPOL-EN16931-R001', () => edit(standard, /<ram:BusinessProcessSpecifiedDocumentContextParameter>[\s\S]*?<\/ram:BusinessProcessSpecifiedDocumentContextParameter>/, '')],
    ['BR-CO-09', () => edit(standard, '>DE987654321<', '>987654321<')],
    ['BR-CO-26', () => edit(standard, /<ram:SpecifiedTaxRegistration>\s*<ram:ID schemeID="VA">DE123456789[\s\S]*?<\/ram:SpecifiedTaxRegistration>/, '')],
    ['PEPPOL-EN16931-R120', () => edit(standard, '<ram:ChargeAmount>12.50</ram:ChargeAmount>', '<ram:ChargeAmount>12.49</ram:ChargeAmount>')],
    ['BR-27', () => edit(standard, '<ram:ChargeAmount>12.50</ram:ChargeAmount>', '<ram:ChargeAmount>-12.50</ram:ChargeAmount>')],
    ['BR-25', () => edit(standard, '<ram:Name>Article 1</ram:Name>', '')],
    ['BR-S-05', () => edit(oneLine, /(?<head><ram:SpecifiedLineTradeSettlement>\s*<ram:ApplicableTradeTax>\s*<ram:TypeCode>VAT<\/ram:TypeCode>\s*<ram:CategoryCode>S<\/ram:CategoryCode>\s*<ram:RateApplicablePercent>)19</, '$<head>0<')],
    ['PEPPOL-EN16931-R008', () => edit(standard, '<ram:LineTwo>Hinterhaus</ram:LineTwo>', '<ram:LineTwo></ram:LineTwo>')],
    ['BR-AE-10', () => edit(edit(reverseCharge, /<ram:ExemptionReason>[^<]+<\/ram:ExemptionReason>/, ''), /<ram:ExemptionReasonCode>[^<]+<\/ram:ExemptionReasonCode>/, '')],
    ['BR-AE-02', () => edit(reverseCharge, /<ram:SpecifiedTaxRegistration>\s*<ram:ID schemeID="VA">ATU12345678[\s\S]*?<\/ram:SpecifiedTaxRegistration>/, '')],
    ['BR-AE-09', () => edit(reverseCharge, /<ram:CalculatedAmount>[^<]+</, '<ram:CalculatedAmount>1.00<')],
    ['BR-O-02', () => edit(notSubjectToVat, '<ram:ID schemeID="FC">', '<ram:ID schemeID="VA">DE123456789</ram:ID></ram:SpecifiedTaxRegistration><ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">')],
    ['BR-O-05', () => edit(notSubjectToVat, /(<ram:SpecifiedLineTradeSettlement>\s*<ram:ApplicableTradeTax>[\s\S]*?<ram:CategoryCode>O<\/ram:CategoryCode>)/, '$1<ram:RateApplicablePercent>0</ram:RateApplicablePercent>')],
    ['BR-IC-12', () => edit(intraCommunity, /<ram:ShipToTradeParty>[\s\S]*?<\/ram:ShipToTradeParty>/, '')],
    ['BR-IC-02', () => edit(intraCommunity, /<ram:SpecifiedTaxRegistration>\s*<ram:ID schemeID="VA">FR[\s\S]*?<\/ram:SpecifiedTaxRegistration>/, '')],
  ])('sees %s broken', (rule, broken) => {
    expect(rulesOf(broken())).toContain(rule);
  });

  it('flags XRechnung warnings as warnings, the rest as fatal', () => {
    const failures = checkEn16931(edit(standard, '<ram:TypeCode>380</ram:TypeCode>', '<ram:TypeCode>383</ram:TypeCode>'));
    expect(failures).toEqual([{ rule: 'BR-DE-17', flag: 'warning', message: expect.any(String) }]);
    expect(checkEn16931(edit(standard, /<ram:BuyerReference>[^<]+<\/ram:BuyerReference>/, ''))).toEqual([{ rule: 'BR-DE-15', flag: 'fatal', message: expect.any(String) }]);
  });

  it('a seller with only a tax number passes through BT-29', () => {
    const xml = xrechnungFormat.build(germanInvoice({ seller: { ...germanSeller(), vatId: null } })).xml;
    expect(checkEn16931(xml)).toEqual([]);
    expect(rulesOf(edit(xml, /<ram:ID>21\/815\/08150<\/ram:ID>/, ''))).toContain('BR-CO-26');
  });
});
