import { z } from 'zod';
import { Timestamp } from '../common/schemas.js';

/**
 * What a signed operation publishes (`fiscal_information`, the receipt's
 * `fiscal`): a union on `regime`, one variant per regime, each the published
 * form of its regime's record (src/fiscal/<regime>/).
 */
export const KassenSichVFiscalInformation = z
  .object({
    regime: z.literal('KassenSichV'),
    document_number: z.string(),
    document_type: z.string(),
    tss_serial_number: z.string(),
    pos_client_serial_number: z.string(),
    signature_algorithm: z.string(),
    time_format: z.literal('unixTime'),
    start_event: z.object({ signed_at: Timestamp }),
    end_event: z.object({
      signed_at: Timestamp,
      transaction_counter: z.number().int(),
      signature_counter: z.number().int(),
      signature: z.string(),
      public_key: z.string(),
      process_type: z.string(),
      process_data: z.string(),
    }),
    verification: z.object({ qr_data: z.string() }),
  })
  .meta({ id: 'KassenSichVFiscalInformation' });

export type KassenSichVFiscalInformationView = z.infer<typeof KassenSichVFiscalInformation>;

export const FiscalInformation = z
  .discriminatedUnion('regime', [KassenSichVFiscalInformation])
  .meta({ id: 'FiscalInformation', discriminator: { propertyName: 'regime' } });

export type FiscalInformationView = z.infer<typeof FiscalInformation>;
