import { z } from 'zod';
import { Timestamp } from '../common/schemas.js';

/** The null receipts a merchant asks for; the others (start, collective, the automatic monthly) the service issues itself. */
export const REQUESTED_NULL_RECEIPT_TYPES = ['null', 'monthly', 'annual', 'closing'] as const;
export type RequestedNullReceiptType = (typeof REQUESTED_NULL_RECEIPT_TYPES)[number];

/** Every receipt of an RKSV register without turnover: each receipt type but the Standardbeleg. */
export const NULL_RECEIPT_TYPES = ['start', 'null', 'monthly', 'annual', 'closing', 'collective'] as const;
export type NullReceiptType = (typeof NULL_RECEIPT_TYPES)[number];

export const CreateNullReceiptBody = z.strictObject({
  type: z
    .enum(REQUESTED_NULL_RECEIPT_TYPES)
    .describe(
      'null: a control receipt; monthly: closes the current month (annual: closes December); closing: the Schlussbeleg, which takes the register out of service',
    ),
});

export const NullReceipt = z
  .object({
    id: z.string(),
    register_id: z.string(),
    type: z
      .enum(NULL_RECEIPT_TYPES)
      .describe('start: the Startbeleg of fiscalization; collective: the Sammelbeleg after a signature device failure; the rest as requested or due'),
    document_number: z.string().describe('The Belegnummer'),
    signed_at: Timestamp,
    jws: z.string().describe('The compact JWS as the DEP stores it'),
    verification: z.object({ qr_data: z.string().describe('The QR representation of the receipt code') }),
    signature_device_failed: z.boolean().describe('True when the receipt carries the failure marker instead of a signature'),
  })
  .meta({ id: 'NullReceipt' });

export type NullReceiptView = z.infer<typeof NullReceipt>;

export const NullReceiptList = z.object({ data: z.array(NullReceipt) });
