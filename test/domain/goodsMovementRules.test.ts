import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAmount, parseAmount, sumAmounts } from '../../src/domain/money.js';
import { validateGoodsMovement } from '../../src/domain/operations/goodsMovementRules.js';
import type { GoodsMovementInput } from '../../src/domain/operations/operationInput.js';
import { codesAndFields, consistentInput, decimalString } from './fixtures.js';

const check = (input: GoodsMovementInput) => codesAndFields(validateGoodsMovement(input));

describe('validateGoodsMovement: valid bodies', () => {
  it('accepts a consistent POS sale', () => {
    const sale = consistentInput('sale', [{ total: '10.00' }]);
    expect(sale.tax_amount).toBe('1.59663866');
    expect(sale.pretax_amount).toBe('8.40336134');
    expect(validateGoodsMovement(sale)).toEqual([]);
  });

  it('accepts a consistent return', () => {
    expect(check(consistentInput('return', [{ total: '-10.00' }]))).toEqual([]);
  });

  it('accepts an ONLINE exchange with lines of both signs and an external original', () => {
    const exchange: GoodsMovementInput = {
      ...consistentInput('exchange', [{ total: '20.00' }, { total: '-10.00' }]),
      source: 'ONLINE',
      register_id: undefined,
      related_operation_id: null,
      external_related_operation: { description: 'Till receipt 42', external_operation_id: 'ext-42' },
    };
    expect(check(exchange)).toEqual([]);
  });

  it('accepts zero for a sale and for a return, negative zero included', () => {
    expect(check(consistentInput('sale', [{ total: '0.00' }]))).toEqual([]);
    expect(check(consistentInput('return', [{ total: '0.00' }]))).toEqual([]);
    expect(check({ ...consistentInput('sale', [{ total: '0.00' }]), total_amount: '-0.00' })).toEqual([]);
  });

  it('accepts a sale with a tip and cart-level discounts', () => {
    const sale = consistentInput('sale', [{ total: '10.00' }, { total: '5.00', rates: ['0.07'] }], {
      tip: '1.50',
      discounts: ['2.00', '0.50'],
    });
    expect(sale.total_amount).toBe('14.00');
    expect(check(sale)).toEqual([]);
  });

  it('compares amounts numerically, whatever their scale', () => {
    const sale = consistentInput('sale', [{ total: '10.00' }]);
    sale.line_items[0].taxes[0].tax_amount = '1.596638660';
    sale.total_amount = '10';
    sale.tip_amount = '0';
    expect(check(sale)).toEqual([]);
  });
});

describe('validateGoodsMovement: register (rule 1)', () => {
  it('requires register_id on POS', () => {
    expect(check({ ...consistentInput('sale', [{ total: '1.00' }]), register_id: undefined })).toEqual([
      ['validation_error', 'register_id'],
    ]);
    expect(check({ ...consistentInput('sale', [{ total: '1.00' }]), register_id: '  ' })).toEqual([
      ['validation_error', 'register_id'],
    ]);
  });

  it('forbids register_id on ONLINE', () => {
    expect(check({ ...consistentInput('sale', [{ total: '1.00' }]), source: 'ONLINE' })).toEqual([
      ['validation_error', 'register_id'],
    ]);
  });

  it('accepts ONLINE with a null register_id', () => {
    expect(check({ ...consistentInput('sale', [{ total: '1.00' }]), source: 'ONLINE', register_id: null })).toEqual([]);
  });
});

describe('validateGoodsMovement: related operation (rules 2 and 3)', () => {
  const external = { description: 'Paper receipt', external_operation_id: 'ext-1' };

  it('forbids both references on a sale', () => {
    const sale = { ...consistentInput('sale', [{ total: '1.00' }]), related_operation_id: 'op_1', external_related_operation: external };
    expect(check(sale)).toEqual([
      ['validation_error', 'related_operation_id'],
      ['validation_error', 'external_related_operation'],
    ]);
  });

  it.each(['return', 'exchange'] as const)('requires one reference on a %s', (type) => {
    const input = { ...consistentInput(type, [{ total: '-1.00' }]), related_operation_id: undefined };
    expect(check(input)).toEqual([['validation_error', 'related_operation_id']]);
  });

  it.each(['return', 'exchange'] as const)('rejects both references on a %s', (type) => {
    const input = { ...consistentInput(type, [{ total: '-1.00' }]), external_related_operation: external };
    expect(check(input)).toEqual([['validation_error', 'external_related_operation']]);
  });

  it('accepts an external original alone on a return', () => {
    const input = { ...consistentInput('return', [{ total: '-1.00' }]), related_operation_id: null, external_related_operation: external };
    expect(check(input)).toEqual([]);
  });
});

describe('validateGoodsMovement: signs (rule 4)', () => {
  it('rejects a negative sale total and line total', () => {
    expect(check(consistentInput('sale', [{ total: '-10.00' }]))).toEqual([
      ['validation_error', 'total_amount'],
      ['validation_error', 'line_items[0].total_amount'],
    ]);
  });

  it('rejects a positive return total and line total', () => {
    expect(check(consistentInput('return', [{ total: '0.01' }]))).toEqual([
      ['validation_error', 'total_amount'],
      ['validation_error', 'line_items[0].total_amount'],
    ]);
  });

  it('checks each line of a sale even when the total is positive', () => {
    expect(check(consistentInput('sale', [{ total: '10.00' }, { total: '-1.00' }]))).toEqual([
      ['validation_error', 'line_items[1].total_amount'],
    ]);
  });

  it('puts no sign constraint on an exchange', () => {
    expect(check(consistentInput('exchange', [{ total: '-30.00' }, { total: '5.00' }]))).toEqual([]);
  });
});

describe('validateGoodsMovement: tax amounts (rule 5)', () => {
  const withTax = (taxAmount: string, rates?: string[], index = 0) => {
    const sale = consistentInput('sale', [{ total: '10.00', rates }]);
    sale.line_items[0].taxes[index].tax_amount = taxAmount;
    // Keep the top-level amounts in line so that only the line tax is wrong.
    const tax = sumAmounts(sale.line_items[0].taxes.map((t) => t.tax_amount));
    return { ...sale, tax_amount: formatAmount(tax), pretax_amount: formatAmount(parseAmount(sale.total_amount).minus(tax)) };
  };

  it.each(['1.59663865', '1.59663867', '1.596638655', '1.60', '1.5966386'])('rejects %s for 10.00 at 19%%', (taxAmount) => {
    const violations = validateGoodsMovement(withTax(taxAmount));
    expect(violations).toEqual([
      {
        code: 'tax_amount_precision_invalid',
        field: 'line_items[0].taxes[0].tax_amount',
        message: expect.any(String),
        details: { expected_tax_amount: '1.59663866' },
      },
    ]);
  });

  it('computes each of two rates against one plus both rates', () => {
    // 1.59663866 is 10.00 at 19 % alone; with 7 % on the same line it must be 1.50793651.
    expect(check(withTax('1.59663866', ['0.07', '0.19'], 1))).toEqual([
      ['tax_amount_precision_invalid', 'line_items[0].taxes[1].tax_amount'],
    ]);
    expect(check(consistentInput('sale', [{ total: '10.00', rates: ['0.07', '0.19'] }]))).toEqual([]);
  });

  it('rejects a negative rate instead of computing with it', () => {
    const sale = consistentInput('sale', [{ total: '10.00' }]);
    sale.line_items[0].taxes[0].rate = '-0.19';
    expect(check(sale)).toEqual([['validation_error', 'line_items[0].taxes[0].rate']]);
  });

  it('names the line and the tax of a later line', () => {
    const sale = consistentInput('sale', [{ total: '1.00' }, { total: '2.00', rates: ['0.07', '0.19'] }]);
    sale.line_items[1].taxes[0].tax_amount = '0.11111112';
    expect(check(sale)).toEqual([['tax_amount_precision_invalid', 'line_items[1].taxes[0].tax_amount']]);
  });

  it('validates every tax the rule computes (property)', () => {
    const type = fc.constantFrom('sale', 'return', 'exchange' as const);
    const rates = fc.array(decimalString(0n, 3000n, 4), { minLength: 0, maxLength: 3 });
    fc.assert(
      fc.property(
        type,
        fc.array(fc.tuple(decimalString(0n, 10n ** 9n, 2), rates), { minLength: 1, maxLength: 5 }),
        decimalString(0n, 10n ** 4n, 2),
        (t, lines, tip) => {
          const sign = t === 'sale' ? '' : '-';
          const input = consistentInput(
            t,
            lines.map(([total, r]) => ({ total: sign + total, rates: r })),
            { tip: t === 'sale' ? tip : '0.00' },
          );
          return validateGoodsMovement(input).length === 0;
        },
      ),
    );
  });
});

describe('validateGoodsMovement: gift card lines (rule 6)', () => {
  it('accepts a gift card line with rate 0 and tax 0, or with no taxes', () => {
    expect(check(consistentInput('sale', [{ total: '50.00', type: 'gift_card', rates: ['0'] }]))).toEqual([]);
    expect(check(consistentInput('sale', [{ total: '50.00', type: 'gift_card', rates: [] }]))).toEqual([]);
  });

  it('rejects a non-zero rate', () => {
    expect(check(consistentInput('sale', [{ total: '50.00', type: 'gift_card', rates: ['0.19'] }]))).toEqual([
      ['gift_card_tax_rate_must_be_zero', 'line_items[0].taxes[0].rate'],
    ]);
  });

  it('rejects a non-zero tax amount at rate 0', () => {
    const sale = consistentInput('sale', [{ total: '50.00', type: 'gift_card', rates: ['0'] }]);
    sale.line_items[0].taxes[0].tax_amount = '0.01';
    sale.tax_amount = '0.01';
    sale.pretax_amount = '49.99';
    expect(check(sale)).toEqual([['gift_card_tax_rate_must_be_zero', 'line_items[0].taxes[0].tax_amount']]);
  });

  it('allows gift_card_id on a gift card line only', () => {
    const sale = consistentInput('sale', [{ total: '50.00', type: 'gift_card', rates: [] }, { total: '1.00' }]);
    sale.line_items[0].gift_card_id = 'gc_1';
    expect(check(sale)).toEqual([]);
    sale.line_items[1].gift_card_id = 'gc_2';
    expect(check(sale)).toEqual([['validation_error', 'line_items[1].gift_card_id']]);
  });
});

describe('validateGoodsMovement: cart-level discounts', () => {
  it.each(['0.00', '-1.00'])('rejects a discount of %s', (amount) => {
    const sale = consistentInput('sale', [{ total: '10.00' }], { discounts: ['1.00', amount] });
    expect(check(sale)).toEqual([['validation_error', 'cart_level_discounts[1].amount']]);
  });

  it('rejects discounts on a return', () => {
    const input = consistentInput('return', [{ total: '-10.00' }]);
    input.cart_level_discounts = [{ amount: '1.00' }];
    input.total_amount = '-11.00';
    input.pretax_amount = '-9.40336134';
    expect(check(input)).toEqual([['validation_error', 'cart_level_discounts']]);
  });
});

describe('validateGoodsMovement: amounts add up', () => {
  it('requires total = Σ lines − discounts + tip', () => {
    const sale = consistentInput('sale', [{ total: '10.00' }, { total: '2.50' }], { tip: '1.00', discounts: ['0.50'] });
    expect(sale.total_amount).toBe('13.00');
    const pretax = parseAmount('13.50').minus(sale.tax_amount).minus(sale.tip_amount);
    const wrong = { ...sale, total_amount: '13.50', pretax_amount: formatAmount(pretax) };
    expect(validateGoodsMovement(wrong)).toEqual([
      expect.objectContaining({
        code: 'validation_error',
        field: 'total_amount',
        details: { expected_total_amount: '13.00' },
      }),
    ]);
  });

  it('requires pretax + tax + tip = total', () => {
    const sale = consistentInput('sale', [{ total: '10.00' }], { tip: '2.00' });
    expect(validateGoodsMovement({ ...sale, pretax_amount: '10.40336134' })).toEqual([
      expect.objectContaining({
        code: 'validation_error',
        field: 'pretax_amount',
        details: { expected_pretax_amount: '8.40336134' },
      }),
    ]);
  });

  it('accepts a tax_amount rounded to the currency within half a minor unit per tax', () => {
    const sale = consistentInput('sale', [{ total: '10.00' }]);
    expect(check({ ...sale, tax_amount: '1.60', pretax_amount: '8.40' })).toEqual([]);
    expect(check({ ...sale, tax_amount: '1.61', pretax_amount: '8.39' })).toEqual([['validation_error', 'tax_amount']]);
  });

  it('widens the tolerance with the number of taxes', () => {
    // Three lines of 0.03 at 19 %: 0.00478992 each, 0.01436976 together; rounding each to
    // cents gives 0.00 + 0.00 + 0.00, summing first gives 0.01.
    const sale = consistentInput('sale', [{ total: '0.03' }, { total: '0.03' }, { total: '0.03' }]);
    expect(check({ ...sale, tax_amount: '0.00', pretax_amount: '0.09' })).toEqual([]);
    expect(check({ ...sale, tax_amount: '0.01', pretax_amount: '0.08' })).toEqual([]);
    expect(check({ ...sale, tax_amount: '0.03', pretax_amount: '0.06' })).toEqual([['validation_error', 'tax_amount']]);
  });

  it('uses the currency exponent for the tolerance', () => {
    const sale = { ...consistentInput('sale', [{ total: '1000', rates: ['0.1'] }]), currency: 'JPY' };
    expect(sale.tax_amount).toBe('90.90909091');
    expect(check({ ...sale, tax_amount: '91', pretax_amount: '909' })).toEqual([]);
    expect(check({ ...sale, tax_amount: '92', pretax_amount: '908' })).toEqual([['validation_error', 'tax_amount']]);
  });

  it('allows no tax at all on lines without taxes', () => {
    const sale = consistentInput('sale', [{ total: '10.00', rates: [] }]);
    expect(check(sale)).toEqual([]);
    expect(check({ ...sale, tax_amount: '0.01', pretax_amount: '9.99' })).toEqual([['validation_error', 'tax_amount']]);
  });

  it('does not compare tax_amount with the line taxes when cart-level discounts apply', () => {
    // 10.00 at 19 % less a 1.00 discount: the integrator's tax of the discounted cart.
    const sale = consistentInput('sale', [{ total: '10.00' }], { discounts: ['1.00'] });
    expect(check({ ...sale, tax_amount: '1.44', pretax_amount: '7.56' })).toEqual([]);
  });
});
