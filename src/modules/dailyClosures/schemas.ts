import { z } from 'zod';

const DecimalString = z.string().meta({ example: '12.30' });

const ClosureTotal = z.object({
  vat_rate: DecimalString.optional().describe('The VAT rate as a decimal string (0.22); absent for a natura line'),
  natura: z.string().optional().describe('The natura code (N1 ... N7) of lines at rate 0; absent for a VAT rate line'),
  amount: DecimalString.describe("The sales' taxable base at this rate (for a natura, the amount)"),
  tax: DecimalString.describe('The VAT on the sales net of returns'),
  returns: DecimalString.describe("The returns' taxable base at this rate"),
});

export const DailyClosure = z.object({
  id: z.string(),
  register_id: z.string(),
  fiscal_day: z.number().int().describe('The fiscal day closed; the next document is <fiscal_day + 1>-0001'),
  closed_at: z.string(),
  document_count: z.number().int(),
  totals: z.array(ClosureTotal),
  paid_cash: DecimalString.describe('Cash taken, net of cash paid back on returns'),
  paid_electronic: DecimalString.describe('Electronic payments taken, net of those paid back on returns'),
  transmission: z.object({
    status: z.enum(['pending', 'transmitted', 'rejected', 'failed']),
    transmitted_at: z.string().nullable(),
    errors: z.array(z.object({ code: z.string(), message: z.string() })),
  }),
  links: z.object({ cor10: z.string().nullable().describe("The COR10 XML; null for a printer, which makes and transmits its own") }),
});

export const DailyClosureList = z.object({ data: z.array(DailyClosure) });
