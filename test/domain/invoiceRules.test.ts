// The jurisdiction-neutral invoice rules: states, VAT categories, tax ids, the partita IVA
// check digit, numbering, the chain hash and the checks made before anything is numbered.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { italianVatCheckDigit, isValidItalianVatNumber } from '../../src/domain/italianVatNumber.js';
import { CHAIN_START, chainHash, chainHashInput } from '../../src/domain/invoices/chainHash.js';
import { formatInvoiceNumber, SERIES_PATTERN } from '../../src/domain/invoices/invoiceNumber.js';
import { invoiceLineViolations, invoiceRuleViolations, type InvoiceRuleInput } from '../../src/domain/invoices/invoiceRules.js';
import { INVOICE_STATES, nextInvoiceState } from '../../src/domain/invoices/invoiceStates.js';
import { canonicalVatId, inferTaxIdType, resolveTaxId } from '../../src/domain/invoices/partyTaxId.js';
import { NATURE_CODE_PATTERN, vatCategoryMismatch, vatCategoryOf } from '../../src/domain/invoices/vatCategory.js';

describe('the Italian partita IVA', () => {
  it('checks its last digit', () => {
    expect(isValidItalianVatNumber('12345678903')).toBe(true);
    expect(isValidItalianVatNumber('12345678901')).toBe(false);
    expect(isValidItalianVatNumber('00743110157')).toBe(true);
    expect(isValidItalianVatNumber('01234567890')).toBe(false);
    expect(isValidItalianVatNumber('1234567890')).toBe(false);
    expect(italianVatCheckDigit('0123456789')).toBe(7);
  });
});

describe('invoice states', () => {
  it('move along the SdI flow and back from a failed cancellation', () => {
    expect(nextInvoiceState(null, 'created')).toBe('draft');
    expect(nextInvoiceState('draft', 'submitted')).toBe('submitted');
    expect(nextInvoiceState('submitted', 'received_by_authority')).toBe('transmitted');
    expect(nextInvoiceState('transmitted', 'rejected')).toBe('rejected_by_authority');
    expect(nextInvoiceState('transmitted', 'delivered')).toBe('delivered');
    expect(nextInvoiceState('transmitted', 'undeliverable')).toBe('undeliverable');
    // A mail server's permanent refusal of the recipient as the file is handed over (DE, smtp).
    expect(nextInvoiceState('submitted', 'undeliverable')).toBe('undeliverable');
    expect(nextInvoiceState('submitted', 'delivered')).toBeNull();
    expect(nextInvoiceState('delivered', 'recipient_refused')).toBe('delivered');
    expect(nextInvoiceState('delivered', 'implicitly_accepted')).toBe('accepted');
    expect(nextInvoiceState('draft', 'cancelled_as_draft')).toBe('cancelled');
    expect(nextInvoiceState('accepted', 'cancellation_requested')).toBe('cancellation_requested');
    expect(nextInvoiceState('cancellation_requested', 'cancellation_confirmed')).toBe('cancelled');
    expect(nextInvoiceState('cancellation_requested', 'cancellation_failed', 'delivered')).toBe('delivered');
  });

  it("take the authority's answer to an invoice cancelled before it came: recorded while cancelling, or rejected", () => {
    expect(nextInvoiceState('cancellation_requested', 'delivered')).toBe('cancellation_requested');
    expect(nextInvoiceState('cancellation_requested', 'undeliverable')).toBe('cancellation_requested');
    expect(nextInvoiceState('cancellation_requested', 'rejected')).toBe('rejected_by_authority');
    expect(nextInvoiceState('cancellation_requested', 'cancellation_failed', 'undeliverable')).toBe('undeliverable');
    expect(nextInvoiceState('cancellation_requested', 'recipient_accepted')).toBeNull();
  });

  it('refuse every other move', () => {
    expect(nextInvoiceState('rejected_by_authority', 'cancellation_requested')).toBeNull();
    expect(nextInvoiceState('submitted', 'cancellation_requested')).toBeNull();
    expect(nextInvoiceState('cancelled', 'cancellation_requested')).toBeNull();
    expect(nextInvoiceState('transmitted', 'submitted')).toBeNull();
    expect(nextInvoiceState('accepted', 'delivered')).toBeNull();
    expect(nextInvoiceState('cancelled', 'delivered')).toBeNull();
    expect(nextInvoiceState('rejected_by_authority', 'rejected')).toBeNull();
    expect(nextInvoiceState('cancellation_requested', 'cancellation_failed', 'draft')).toBeNull();
    for (const state of INVOICE_STATES) expect(nextInvoiceState(state, 'created')).toBeNull();
  });
});

describe('VAT categories', () => {
  it('follow from the rate and the natura code', () => {
    expect(vatCategoryOf('0.22', null)).toBe('S');
    expect(vatCategoryOf('0', null)).toBe('Z');
    expect(vatCategoryOf('0', 'N4')).toBe('E');
    expect(vatCategoryOf('0', 'N6.3')).toBe('AE');
    expect(vatCategoryOf('0', 'N3.2')).toBe('K');
    expect(vatCategoryOf('0', 'N3.1')).toBe('G');
    expect(vatCategoryOf('0', 'N2.1')).toBe('O');
    expect(vatCategoryOf('0', 'N1')).toBe('O');
    expect(vatCategoryOf('0', 'N5')).toBe('E');
    expect(vatCategoryOf('0', 'N4', 'AE')).toBe('AE');
  });

  it('named in a request must fit the rate', () => {
    expect(vatCategoryMismatch('0', 'S')).toMatch(/positive/);
    expect(vatCategoryMismatch('0.19', 'E')).toMatch(/rate 0/);
    expect(vatCategoryMismatch('0', 'AE')).toBeNull();
  });

  it('know the natura codes of FatturaPA 1.2', () => {
    for (const code of ['N1', 'N2.1', 'N2.2', 'N3.1', 'N3.6', 'N4', 'N5', 'N6.1', 'N6.9', 'N7']) expect(code).toMatch(NATURE_CODE_PATTERN);
    for (const code of ['N8', 'N2.3', 'N3.7', 'n4', 'N6.10']) expect(code).not.toMatch(NATURE_CODE_PATTERN);
  });
});

describe('tax ids', () => {
  it('are VAT ids or tax codes, inferred when the type is left out', () => {
    expect(inferTaxIdType('01234567890', 'IT')).toBe('vat_id');
    expect(inferTaxIdType('RSSMRA85T10A562S', 'IT')).toBe('tax_code');
    expect(inferTaxIdType('DE123456789', 'DE')).toBe('vat_id');
    expect(inferTaxIdType('123456789', 'DE')).toBe('vat_id');
    expect(inferTaxIdType('21/815/08150', 'DE')).toBe('tax_code');
    expect(canonicalVatId('123 456 789', 'DE')).toBe('DE123456789');
    expect(canonicalVatId('094259216', 'GR')).toBe('EL094259216');
    expect(resolveTaxId('01234567890', undefined, 'IT')).toEqual({ taxId: 'IT01234567890', taxIdType: 'vat_id', vatId: 'IT01234567890', taxCode: null });
    expect(resolveTaxId('rssmra85t10a562s', 'tax_code', 'IT')).toMatchObject({ taxCode: 'RSSMRA85T10A562S', vatId: null });
    expect(resolveTaxId(null, undefined, 'IT').taxId).toBeNull();
  });
});

describe('numbering and the chain', () => {
  it('numbers <series>/<year>/<n>', () => {
    expect(formatInvoiceNumber('INV', 2026, 7)).toBe('INV/2026/7');
    expect('FT-2026').toMatch(SERIES_PATTERN);
    expect('ft').not.toMatch(SERIES_PATTERN);
  });

  it('hashes the previous chain hash followed by the document hash', () => {
    const xml = Buffer.from('<a>ä</a>', 'utf8');
    const documentHash = createHash('sha256').update(xml).digest('hex');
    expect(chainHashInput(CHAIN_START, documentHash)).toHaveLength(128);
    const first = chainHash(CHAIN_START, xml);
    expect(first).toBe(createHash('sha256').update(`${'0'.repeat(64)}${documentHash}`).digest('hex'));
    expect(chainHash(first, xml)).toBe(createHash('sha256').update(`${first}${documentHash}`).digest('hex'));
  });
});

describe('invoice rules', () => {
  const base: InvoiceRuleInput = {
    jurisdiction: 'IT',
    documentType: 'invoice',
    currency: 'EUR',
    issueDate: '2026-03-10',
    paymentTerms: null,
    originalInvoiceId: null,
    original: null,
  };
  const fields = (input: Partial<InvoiceRuleInput>, total = 1000, today?: string) =>
    invoiceRuleViolations({ ...base, ...input }, total, today).map((v) => v.field);

  it('refuse a discount beyond its line and a category that does not fit the rate', () => {
    const violations = invoiceLineViolations([
      { quantity: '1', unitPriceNet: 100, discount: { type: 'amount', amount: 101 }, rate: '0.22', requestedCategory: null },
      { quantity: '1', unitPriceNet: 100, discount: null, rate: '0', requestedCategory: 'S' },
      { quantity: '1', unitPriceNet: 100, discount: { type: 'rate', rate: '1' }, rate: '0.22', requestedCategory: 'S' },
    ]);
    expect(violations.map((v) => v.field)).toEqual(['line_items[0].discount.amount', 'line_items[1].tax.category']);
  });

  it('want a credit note to name a correctable original of the same jurisdiction and currency', () => {
    const original = { state: 'delivered' as const, jurisdiction: 'IT', currency: 'EUR', documentType: 'invoice' as const };
    expect(fields({ documentType: 'credit_note' })).toEqual(['references.original_invoice_id']);
    expect(fields({ documentType: 'credit_note', originalInvoiceId: 'inv_x', original: null })).toEqual(['references.original_invoice_id']);
    expect(fields({ documentType: 'credit_note', originalInvoiceId: 'inv_x', original })).toEqual([]);
    expect(fields({ documentType: 'credit_note', originalInvoiceId: 'inv_x', original: { ...original, state: 'draft' } })).toEqual(['references.original_invoice_id']);
    expect(fields({ documentType: 'credit_note', originalInvoiceId: 'inv_x', original: { ...original, state: 'rejected_by_authority' } })).toEqual(['references.original_invoice_id']);
    expect(fields({ documentType: 'credit_note', originalInvoiceId: 'inv_x', original: { ...original, jurisdiction: 'DE' } })).toEqual(['references.original_invoice_id']);
    expect(fields({ documentType: 'debit_note' })).toEqual([]);
    expect(fields({ documentType: 'invoice', originalInvoiceId: 'inv_x', original })).toEqual(['references.original_invoice_id']);
  });

  it('want installments to add up to the total and dates in order', () => {
    const installments = [{ dueDate: '2026-04-10', amount: 600 }, { dueDate: '2026-05-10', amount: 300 }];
    expect(fields({ paymentTerms: { dueDate: null, installments } })).toEqual(['payment_terms.installments']);
    expect(fields({ paymentTerms: { dueDate: null, installments } }, 900)).toEqual([]);
    expect(fields({ paymentTerms: { dueDate: '2026-03-09', installments: [] } })).toEqual(['payment_terms.due_date']);
  });

  it('refuse to submit an invoice dated after today', () => {
    expect(fields({}, 1000, '2026-03-09')).toEqual(['issue_date']);
    expect(fields({}, 1000, '2026-03-10')).toEqual([]);
  });
});
