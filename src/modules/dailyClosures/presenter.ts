import type { RtDailyClosure } from '../../db/generated/client.js';
import type { RtDayTotal } from '../../domain/rtDayTotals.js';
import { formatAmount } from '../../domain/money.js';

/** A daily closure as the API shows it (DESIGN "Italy: RT"). */
export function presentDailyClosure(closure: RtDailyClosure, publicBaseUrl: string) {
  return {
    id: closure.id,
    register_id: closure.registerId,
    fiscal_day: closure.fiscalDay,
    closed_at: closure.closedAt.toISOString(),
    document_count: closure.documentCount,
    totals: (closure.totals as unknown as RtDayTotal[]).map((line) => ({
      ...(line.tax.startsWith('N') ? { natura: line.tax } : { vat_rate: line.tax }),
      amount: line.amount,
      tax: line.taxAmount,
      returns: line.returns,
    })),
    paid_cash: formatAmount(closure.paidCash.toString(), 2),
    paid_electronic: formatAmount(closure.paidElectronic.toString(), 2),
    transmission: {
      status: closure.transmissionStatus as 'pending' | 'transmitted' | 'rejected' | 'failed',
      transmitted_at: closure.transmittedAt?.toISOString() ?? null,
      errors: closure.transmissionErrors as { code: string; message: string }[],
    },
    links: { cor10: closure.cor10 === null ? null : `${publicBaseUrl}/v1/daily-closures/${closure.id}/cor10` },
  };
}
