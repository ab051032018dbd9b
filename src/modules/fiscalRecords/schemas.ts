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

/** The fields of one signed RKSV receipt (DESIGN "Austria: RKSV"), shared by Style M and Style O. */
export const rksvReceiptFields = {
  regime: z.literal('RKSV'),
  document_number: z.string().describe('The Belegnummer, unique per register in signing order'),
  document_type: z.enum(['start', 'standard', 'null', 'monthly', 'annual', 'closing', 'collective']),
  cash_register_id: z.string().describe('The Kassen-ID'),
  suite: z.string().describe('Field 1: R1-AT0 (closed system) or R1-<ZDA id> (a trust service’s certificate, R1-AT1 for A-Trust)'),
  signature_device_id: z.string().describe('Field 11: <Ordnungsbegriff>-<key id>, or the certificate serial in hex'),
  signed_at: Timestamp,
  amounts: z
    .object({ normal: z.string(), reduced_1: z.string(), reduced_2: z.string(), zero: z.string(), special: z.string() })
    .describe('Gross per rate: normal 20 %, reduced_1 10 %, reduced_2 13 %, zero 0 %, special 19 %; they add up to the total'),
  turnover_counter_encrypted: z.string().describe('Field 10: the turnover counter, AES-256-ICM encrypted, Base64'),
  chain_value: z.string().describe('Field 12: Base64 of the first 8 bytes of SHA-256 over the previous receipt’s JWS'),
  jws: z.string().describe('The receipt as a compact JWS (ES256), as the DEP stores it'),
  signature_device_failed: z.boolean().describe('The signature device was out: the JWS carries the failure marker instead of a signature'),
  public_key: z.string().describe('Base64 DER SubjectPublicKeyInfo of the signature device (of its certificate, for a trust service’s unit)'),
};

export const RksvFiscalInformation = z
  .object({ ...rksvReceiptFields, verification: z.object({ qr_data: z.string().describe('The machine-readable code to print as the receipt QR code') }) })
  .meta({ id: 'RksvFiscalInformation' });

const ReferencedDocument = z
  .object({ document_number: z.string(), device_serial: z.string(), issued_at: Timestamp })
  .describe('A documento di reso’s original: its number, the RT that issued it and when');

/** The fields of one documento commerciale (DESIGN "Italy: RT"), shared by Style M and Style O. */
export const rtDocumentFields = {
  regime: z.literal('RT'),
  document_type: z.enum(['sale', 'return']).describe('sale: documento commerciale di vendita; return: documento di reso'),
  document_number: z.string().describe('NNNN-NNNN: the fiscal day, then the document’s progressive within it'),
  fiscal_day: z.number().int(),
  document_progressive: z.number().int(),
  device_serial: z.string().describe('The RT’s matricola, printed as RT <serial>'),
  issued_at: Timestamp,
  lottery_code: z.string().nullable(),
  referenced_document: ReferencedDocument.nullable(),
};

export const RtFiscalInformation = z
  .object({
    ...rtDocumentFields,
    verification: z.object({ url: z.string().nullable().describe('The hosted receipt page of the document: the customer’s electronic copy') }),
  })
  .meta({ id: 'RtFiscalInformation' });

export const FiscalInformation = z
  .discriminatedUnion('regime', [KassenSichVFiscalInformation, RksvFiscalInformation, RtFiscalInformation])
  .meta({ id: 'FiscalInformation', discriminator: { propertyName: 'regime' } });

export type FiscalInformationView = z.infer<typeof FiscalInformation>;
