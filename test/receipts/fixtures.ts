import { kassenSichVReceiptSection, type PublishedKassenSichVRecord } from '../../src/fiscal/kassensichv/fiscalInformation.js';
import type { ReceiptDocument } from '../../src/receipts/receiptDocument.js';

/** A real, verified DSFinV-K QR string (kassensichv.md §8). */
export const QR_DATA =
  'V0;ERS 8cb8e2de-4052-481b-945b-118022951944;Kassenbeleg-V1;Beleg^21.42_0.00_0.00_0.00_0.00^21.42:Unbar;1;31;2021-08-23T14:36:27.000Z;2021-08-23T14:36:33.000Z;ecdsa-plain-SHA256;unixTime;TGnWiq3ZW7gi4Vs+DxLGsJZj9v271dHmhQAcb057F3oWkdKJ61UW2LLVTZQhW673yLa53Mm6oPeMU1Ns3ZOH7w==;BGFKQP7EENf3s5hTDXvlh+xyJ1Q9BNIa9LyYbYK+pTAKAGQ2fmI40p5QOrpHpvb+UuOrNQJdhzggHNfyyyDyf/g=';

export const TSE_SERIAL = 'aadfb3152cbde762aa5027e350ba9aeacb69b6236b4f25fc3ea78b69e610952a';

/** The signed KassenSichV record behind QR_DATA, as fiscal_information publishes it. */
export const FISCAL_RECORD: PublishedKassenSichVRecord = {
  regime: 'KassenSichV',
  document_number: '1',
  document_type: 'Beleg',
  tss_serial_number: TSE_SERIAL,
  pos_client_serial_number: 'ERS 8cb8e2de-4052-481b-945b-118022951944',
  signature_algorithm: 'ecdsa-plain-SHA256',
  time_format: 'unixTime',
  start_event: { signed_at: '2021-08-23T14:36:27.000Z' },
  end_event: {
    signed_at: '2021-08-23T14:36:33.000Z',
    transaction_counter: 1,
    signature_counter: 31,
    signature: 'TGnWiq3ZW7gi4Vs+DxLGsJZj9v271dHmhQAcb057F3oWkdKJ61UW2LLVTZQhW673yLa53Mm6oPeMU1Ns3ZOH7w==',
    public_key: 'BGFKQP7EENf3s5hTDXvlh+xyJ1Q9BNIa9LyYbYK+pTAKAGQ2fmI40p5QOrpHpvb+UuOrNQJdhzggHNfyyyDyf/g=',
    process_type: 'Kassenbeleg-V1',
    process_data: 'Beleg^21.42_0.00_0.00_0.00_0.00^21.42:Unbar',
  },
  verification: { qr_data: QR_DATA },
};

export function sampleReceipt(overrides: Partial<ReceiptDocument> = {}): ReceiptDocument {
  return {
    documentNumber: '1',
    issuedAt: new Date('2021-08-23T14:36:33.000Z'),
    timeZone: 'Europe/Berlin',
    currency: 'EUR',
    operationType: 'sale',
    issuer: {
      legalName: 'Bäckerei Müller GmbH',
      locationName: 'Filiale Prenzlauer Berg',
      registerName: 'Kasse 1',
      address: { line1: 'Kastanienallee 12', city: 'Berlin', postalCode: '10435', countryCode: 'DEU' },
      taxId: 'DE123456789',
    },
    lines: [
      { description: 'Cappuccino groß', quantity: 2, unitPrice: '3.60', totalAmount: '7.20', taxRate: '0.19', taxCode: null, taxAmount: '1.15' },
      {
        description: 'Roggenmischbrot, 750 g, frisch aus dem Steinofen',
        quantity: 1,
        unitPrice: '4.9',
        totalAmount: '4.90',
        taxRate: '0.07',
        taxCode: null,
        taxAmount: '0.32',
      },
      { description: 'Croissant', quantity: 4, unitPrice: '1.50', totalAmount: '6.00', taxRate: '0.07', taxCode: null, taxAmount: '0.39' },
      { description: 'Geschenkkarte', quantity: 1, unitPrice: '5.00', totalAmount: '5.00', taxRate: '0', taxCode: null, taxAmount: '0' },
    ],
    cartDiscounts: [{ description: 'Stammkundenrabatt', amount: '1.68' }],
    totals: { gross: '22.42', tip: '1.00' },
    // vatTable of the lines less the discount (0.52 / 0.80 / 0.36), the tip under 0 %.
    vat: {
      rows: [
        { rate: '0.19', net: '5.61', tax: '1.07', gross: '6.68' },
        { rate: '0.07', net: '9.44', tax: '0.66', gross: '10.10' },
        { rate: '0', net: '5.64', tax: '0.00', gross: '5.64' },
      ],
      total: { net: '20.69', tax: '1.73', gross: '22.42' },
    },
    payments: [
      { method: 'card', amount: '20.00' },
      { method: 'cash', amount: '2.42' },
    ],
    fiscal: kassenSichVReceiptSection(FISCAL_RECORD),
    ...overrides,
  };
}
