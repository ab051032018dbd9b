// The small mappings of the FatturaPA format: progressivo, transmission format, document
// type, payment method, natura, amounts.
import { describe, expect, it } from 'vitest';
import { amount2, percentage } from '../../src/einvoicing/fatturapa/amounts.js';
import { tipoDocumentoOf } from '../../src/einvoicing/fatturapa/documentType.js';
import { fatturaPaFileName } from '../../src/einvoicing/fatturapa/fileName.js';
import { NATURA_CODES, riferimentoNormativoOf } from '../../src/einvoicing/fatturapa/natura.js';
import { modalitaPagamentoOf } from '../../src/einvoicing/fatturapa/paymentMethod.js';
import { MAX_TRANSMISSION_SEQUENCE, progressivoOf } from '../../src/einvoicing/fatturapa/progressivo.js';
import { transmissionFormatOf } from '../../src/einvoicing/fatturapa/transmissionFormat.js';
import { chunks, textProblem } from '../../src/einvoicing/fatturapa/xmlText.js';

describe('progressivo', () => {
  it('is the transmission sequence in base 36, upper case, five characters', () => {
    expect(progressivoOf(1)).toBe('00001');
    expect(progressivoOf(35)).toBe('0000Z');
    expect(progressivoOf(36)).toBe('00010');
    expect(progressivoOf(46_656)).toBe('01000');
    expect(progressivoOf(MAX_TRANSMISSION_SEQUENCE)).toBe('ZZZZZ');
    expect(MAX_TRANSMISSION_SEQUENCE).toBe(60_466_175);
  });

  it('is unique: distinct sequences give distinct progressivi of [0-9A-Z]{5}', () => {
    const seen = new Set<string>();
    for (let n = 1; n <= 5000; n += 1) {
      const p = progressivoOf(n);
      expect(p).toMatch(/^[0-9A-Z]{5}$/);
      seen.add(p);
    }
    expect(seen.size).toBe(5000);
  });

  it('refuses sequences it cannot write', () => {
    for (const n of [0, -1, 1.5, MAX_TRANSMISSION_SEQUENCE + 1]) expect(() => progressivoOf(n)).toThrow(RangeError);
  });

  it('names the file after the transmitter', () => {
    expect(fatturaPaFileName('01234567890', '0000A')).toBe('IT01234567890_0000A.xml');
  });
});

describe('transmission format', () => {
  it('is FPA12 for a 6-character office code, FPR12 for 7 characters and 0000000', () => {
    expect(transmissionFormatOf('UF7XQZ')).toBe('FPA12');
    expect(transmissionFormatOf('ABC1234')).toBe('FPR12');
    expect(transmissionFormatOf('0000000')).toBe('FPR12');
    expect(() => transmissionFormatOf('abc123')).toThrow(RangeError);
  });
});

describe('document type', () => {
  it('maps every document type', () => {
    expect(['invoice', 'simplified_invoice', 'credit_note', 'debit_note', 'deferred_invoice', 'self_invoice'].map((t) => tipoDocumentoOf(t as never))).toEqual([
      'TD01',
      'TD01',
      'TD04',
      'TD05',
      'TD24',
      'TD27',
    ]);
  });
});

describe('payment method', () => {
  it('maps the methods it knows, matched as people write them; MP05 without one', () => {
    expect(modalitaPagamentoOf(null)).toBe('MP05');
    expect(modalitaPagamentoOf(' Bank-Transfer ')).toBe('MP05');
    expect(modalitaPagamentoOf('cash')).toBe('MP01');
    expect(modalitaPagamentoOf('Credit Card')).toBe('MP08');
    expect(modalitaPagamentoOf('SEPA Direct Debit B2B')).toBe('MP21');
    expect(modalitaPagamentoOf('pagopa')).toBe('MP23');
    expect(modalitaPagamentoOf('bitcoin')).toBeUndefined();
  });
});

describe('natura', () => {
  it('every code in force has a legal reference that fits String100Latin', () => {
    expect(NATURA_CODES).toHaveLength(21);
    for (const code of NATURA_CODES) expect(textProblem(riferimentoNormativoOf(code), 'latin1', 100)).toBeUndefined();
  });
});

describe('amounts and text', () => {
  it('minor units become two-decimal amounts without floats', () => {
    expect(amount2(12345, 'EUR')).toBe('123.45');
    expect(amount2(-5, 'EUR')).toBe('-0.05');
    expect(amount2(0, 'EUR')).toBe('0.00');
    expect(amount2(9_007_199_254_740_991, 'EUR')).toBe('90071992547409.91');
    expect(amount2(1500, 'JPY')).toBe('1500.00');
  });

  it('rates become percentages with two decimals', () => {
    expect(['0.22', '0.1', '0.05', '0.04', '0', '0.0765'].map(percentage)).toEqual(['22.00', '10.00', '5.00', '4.00', '0.00', '7.65']);
  });

  it('texts are split in pieces of a size', () => {
    expect(chunks('abcde', 2)).toEqual(['ab', 'cd', 'e']);
    expect(chunks('', 2)).toEqual([]);
  });

  it('a text problem names the character', () => {
    expect(textProblem('Prezzo €', 'latin1', 100)).toContain('"€" (U+20AC)');
    expect(textProblem('Caffè', 'ascii', 100)).toContain('"è" (U+00E8)');
    expect(textProblem('a\u0000', 'latin1', 100)).toContain('U+0000');
    expect(textProblem('tab\tand\nnewline', 'latin1', 100)).toBeUndefined();
    expect(textProblem('', 'latin1', 100)).toBe('must not be empty');
  });
});
