import { z } from 'zod';
import { FiscalInformation } from '../fiscalRecords/schemas.js';
import { Timestamp } from '../common/schemas.js';

export const Receipt = z
  .object({
    id: z.string(),
    operation_id: z.string(),
    merchant_id: z.string(),
    location_id: z.string().nullable(),
    register_id: z.string().nullable(),
    currency: z.string(),
    issued_at: Timestamp,
    status: z.enum(['available', 'archived']),
    issuer: z.object({
      legal_name: z.string(),
      location_name: z.string().nullable(),
      register_name: z.string().nullable(),
      address: z.object({ line1: z.string(), city: z.string(), postal_code: z.string(), country_code: z.string() }),
      tax_id: z.string().nullable(),
    }),
    line_items: z.array(
      z.object({
        id: z.string(),
        description: z.string(),
        quantity: z.number(),
        unit_price: z.number(),
        total_amount: z.number(),
        tax_rate: z.number(),
        tax_amount: z.number(),
      }),
    ),
    totals: z.object({ total_gross: z.number(), total_net: z.number(), total_tax: z.number() }),
    payments: z.array(z.object({ method: z.string(), amount: z.number(), details: z.record(z.string(), z.string()) })),
    links: z.object({ self: z.string(), pdf: z.string(), hosted: z.string() }),
    external_reference: z.string().nullable(),
    fiscal: FiscalInformation.or(z.strictObject({}).describe('Empty: the operation carries no fiscal signature (an ONLINE goods movement)')),
    metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'Receipt' });

export type ReceiptView = z.infer<typeof Receipt>;
