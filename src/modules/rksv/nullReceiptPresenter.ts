import { qrCodeOf } from '../../fiscal/rksv/receiptCode.js';
import type { NullReceiptRecord } from './nullReceiptService.js';
import type { NullReceiptView } from './nullReceiptSchemas.js';

export function presentNullReceipt(receipt: NullReceiptRecord): NullReceiptView {
  return {
    id: receipt.id,
    register_id: receipt.registerId,
    type: receipt.type,
    document_number: receipt.documentNumber,
    signed_at: receipt.signedAt.toISOString(),
    jws: receipt.jws,
    verification: { qr_data: qrCodeOf(receipt.jws) },
    signature_device_failed: receipt.signatureDeviceFailed,
  };
}
