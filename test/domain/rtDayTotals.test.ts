import { describe, expect, it } from 'vitest';
import { rtDayTotals } from '../../src/domain/rtDayTotals.js';

describe('an RT fiscal day totals', () => {
  it('splits the day’s gross per rate once, keeps natura amounts whole, counts returns against the base and the payments', () => {
    const day = rtDayTotals([
      { kind: 'sale', totals: [{ tax: '0.22', gross: '12.20' }, { tax: 'N4', gross: '5.00' }], paidCash: '17.20', paidElectronic: '0.00' },
      { kind: 'sale', totals: [{ tax: '0.22', gross: '0.10' }, { tax: '0.10', gross: '0.10' }], paidCash: '0.00', paidElectronic: '0.20' },
      { kind: 'sale', totals: [{ tax: '0.22', gross: '0.10' }], paidCash: '0.00', paidElectronic: '0.10' },
      { kind: 'return', totals: [{ tax: '0.22', gross: '6.10' }], paidCash: '6.10', paidElectronic: '0.00' },
    ]);
    expect(day).toEqual({
      documentCount: 4,
      paidCash: '11.10',
      paidElectronic: '0.30',
      totals: [
        // 12.40 gross at 22 %: base 10.16; returns 6.10 -> base 5.00; tax on 6.30 gross net = 6.30 - 5.16
        { tax: '0.22', amount: '10.16', taxAmount: '1.14', returns: '5.00' },
        { tax: '0.10', amount: '0.09', taxAmount: '0.01', returns: '0.00' },
        { tax: 'N4', amount: '5.00', taxAmount: '0.00', returns: '0.00' },
      ],
    });
  });

  it('is empty for a day without documents', () => {
    expect(rtDayTotals([])).toEqual({ documentCount: 0, totals: [], paidCash: '0.00', paidElectronic: '0.00' });
  });
});
