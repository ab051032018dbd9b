import { describe, expect, it } from 'vitest';
import { ciiAmount, ciiDate, ciiPercent } from '../../src/einvoicing/xrechnung/ciiValues.js';
import { documentTypeCode } from '../../src/einvoicing/xrechnung/documentTypeCode.js';
import { xrechnungFileName } from '../../src/einvoicing/xrechnung/fileName.js';
import { isValidIban } from '../../src/einvoicing/xrechnung/iban.js';
import { paymentMeansOf } from '../../src/einvoicing/xrechnung/paymentMeans.js';
import { unitCode } from '../../src/einvoicing/xrechnung/unitCode.js';

describe('XRechnung codes and values', () => {
  it('units: common free text to UN/ECE Rec 20, codes kept, anything else C62', () => {
    const cases: [string | null, string][] = [
      ['pcs', 'H87'], ['Stück', 'H87'], ['Stk.', 'H87'], ['h', 'HUR'], ['Std', 'HUR'], ['hours', 'HUR'], ['min', 'MIN'],
      ['day', 'DAY'], ['Tage', 'DAY'], ['month', 'MON'], ['kg', 'KGM'], ['g', 'GRM'], ['t', 'TNE'], ['l', 'LTR'], ['ml', 'MLT'],
      ['m', 'MTR'], ['km', 'KMT'], ['m²', 'MTK'], ['m3', 'MTQ'], ['kWh', 'KWH'], ['pauschal', 'LS'], ['set', 'SET'], ['Paar', 'PR'],
      ['HUR', 'HUR'], ['kgm', 'KGM'], ['C62', 'C62'], [' KG ', 'KGM'],
      ['Karton', 'C62'], ['', 'C62'], [null, 'C62'],
    ];
    for (const [unit, code] of cases) expect(unitCode(unit), String(unit)).toBe(code);
  });

  it('document types to UNTDID 1001', () => {
    expect(documentTypeCode('invoice')).toBe('380');
    expect(documentTypeCode('simplified_invoice')).toBe('380');
    expect(documentTypeCode('deferred_invoice')).toBe('380');
    expect(documentTypeCode('credit_note')).toBe('381');
    expect(documentTypeCode('debit_note')).toBe('383');
    expect(documentTypeCode('self_invoice')).toBe('389');
  });

  it('payment methods to UNTDID 4461; cards and direct debits have no means', () => {
    expect(paymentMeansOf(null)).toMatchObject({ typeCode: '58', creditTransfer: true });
    expect(paymentMeansOf(' SEPA-Credit Transfer ')).toMatchObject({ typeCode: '58', creditTransfer: true });
    expect(paymentMeansOf('Überweisung')).toMatchObject({ typeCode: '58' });
    expect(paymentMeansOf('cash')).toMatchObject({ typeCode: '10', creditTransfer: false });
    expect(paymentMeansOf('cheque')).toMatchObject({ typeCode: '20' });
    expect(paymentMeansOf('PayPal')).toMatchObject({ typeCode: '68' });
    for (const method of ['card', 'credit_card', 'direct_debit', 'sepa_direct_debit', 'barter']) expect(paymentMeansOf(method), method).toBeUndefined();
  });

  it('IBAN check digits (ISO 13616)', () => {
    expect(isValidIban('DE89370400440532013000')).toBe(true);
    expect(isValidIban('de89 3704 0044 0532 0130 00')).toBe(true);
    expect(isValidIban('GB82WEST12345698765432')).toBe(true);
    expect(isValidIban('AT611904300234573201')).toBe(true);
    expect(isValidIban('DE89370400440532013001')).toBe(false);
    expect(isValidIban('DE8937040044')).toBe(false);
    expect(isValidIban('1289370400440532013000')).toBe(false);
  });

  it('amounts from minor units with two places, exact; rates as percent; dates as 102', () => {
    expect(ciiAmount(123456, 'EUR')).toBe('1234.56');
    expect(ciiAmount(5, 'EUR')).toBe('0.05');
    expect(ciiAmount(-1050, 'EUR')).toBe('-10.50');
    expect(ciiAmount(0, 'EUR')).toBe('0.00');
    expect(ciiAmount(9_007_199_254_740_991, 'EUR')).toBe('90071992547409.91');
    expect(ciiAmount(500, 'JPY')).toBe('500.00');
    expect(ciiPercent('0.19')).toBe('19');
    expect(ciiPercent('0.055')).toBe('5.5');
    expect(ciiPercent('0')).toBe('0');
    expect(ciiDate('2025-03-14')).toBe('20250314');
  });

  it('file names from invoice numbers', () => {
    expect(xrechnungFileName('RE/2025/17')).toBe('RE-2025-17.xml');
    expect(xrechnungFileName('A B/2025\\1')).toBe('A-B-2025-1.xml');
  });
});
