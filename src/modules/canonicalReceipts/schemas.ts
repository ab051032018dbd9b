import { z } from 'zod';
import { Timestamp } from '../common/schemas.js';
import {
  Cashier,
  Metadata,
  OrganizationFiscal,
  OrganizationLineItem,
  OrganizationPayment,
  OrganizationTotals,
  StyleOAddress,
} from '../styleO/schemas.js';

export const CanonicalReceipt = z
  .object({
    object: z.literal('receipt'),
    id: z.string(),
    version: z.number().int().describe('1 when issued; higher when the receipt was re-issued, e.g. once a refund signed late got its signature'),
    created_at: Timestamp,
    issuer: z.object({
      organization_id: z.string(),
      legal_name: z.string(),
      trade_name: z.string().nullable(),
      tax_id: z.string().nullable(),
      address: StyleOAddress,
      location_id: z.string().nullable(),
      location_name: z.string().nullable(),
      register_id: z.string().nullable(),
      register_label: z.string().nullable(),
    }),
    operation: z.object({
      id: z.string(),
      external_id: z.string().nullable(),
      type: z.enum(['sale', 'return', 'refund']),
      sequence_number: z.number().int().nullable(),
      started_at: Timestamp.nullable(),
      completed_at: Timestamp.nullable(),
      currency: z.string(),
      cashier: Cashier.nullable(),
    }),
    line_items: z.array(OrganizationLineItem),
    totals: OrganizationTotals,
    payments: z.array(OrganizationPayment),
    fiscal: OrganizationFiscal.nullable().describe('For Germany both events are printed; verification.qr_data is the exact QR string'),
    customer: z
      .object({
        id: z.string().nullable(),
        display_name: z.string().nullable(),
        tax_id: z.string().nullable(),
        tax_id_type: z.string().nullable(),
        email: z.string().nullable(),
        phone: z.string().nullable(),
        loyalty_number: z.string().nullable(),
      })
      .nullable(),
    notes: z.array(z.object({ type: z.string(), text: z.string() })),
    references: z.object({
      original_operation_id: z.string().nullable(),
      reason: z.string().nullable(),
    }),
    links: z.object({ self: z.string(), pdf: z.string(), operation: z.string() }),
    metadata: Metadata,
  })
  .meta({ id: 'CanonicalReceipt', description: 'Canonical receipt (Style O, contract 2.9) of a completed sale, return or refund' });

export type CanonicalReceiptView = z.infer<typeof CanonicalReceipt>;
