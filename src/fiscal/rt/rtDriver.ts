import type { DeviceExchange } from '../fiscalDevice.js';

/** A line's tax as an RT prints and totals it: a VAT rate (0.22, 0.10, 0.05, 0.04) or, at rate 0, a natura code (N1 ... N6). */
export type RtTax = { kind: 'rate'; rate: string } | { kind: 'natura'; natura: string };

/** One line of a documento commerciale; amounts are positive decimal strings, also on a return. */
export interface RtLine {
  description: string;
  quantity: number;
  unitPrice: string;
  /** Gross line total after line discounts. */
  total: string;
  tax: RtTax;
}

/** The original a documento di reso refers to (reference italy.md §3). */
export interface RtReference {
  /** `NNNN-NNNN`. */
  documentNumber: string;
  deviceSerial: string;
  issuedAt: Date;
}

/** What the RT is asked to issue: a sale (documento commerciale) or a return (documento di reso). */
export interface RtDocumentRequest {
  kind: 'sale' | 'return';
  lines: RtLine[];
  /** Cart-level discounts (positive amounts), printed as subtotal adjustments. */
  discounts: { description: string; amount: string }[];
  /** Positive amounts; `electronic` is every non-cash means. They sum to the document's total. */
  payments: { kind: 'cash' | 'electronic'; amount: string }[];
  /** The customer's lottery code (8 characters [A-Z0-9]), only with electronic payments. */
  lotteryCode: string | null;
  /** Set exactly for a return. */
  reference: RtReference | null;
}

/** The document as the device numbered it. */
export interface RtIssuedDocument {
  /** The open fiscal day: the last closure's number + 1. */
  fiscalDay: number;
  /** The document's progressive within its fiscal day, from 1. */
  progressive: number;
  issuedAt: Date;
  deviceSerial: string;
}

/** A daily closure (Z report) as the device made it. */
export interface RtDayClosure {
  /** The fiscal day closed (the device's new Z counter). */
  fiscalDay: number;
  closedAt: Date;
  /**
   * A printer makes, signs and transmits its COR10 itself; for the simulator
   * the service does it in the device's name.
   */
  transmittedByDevice: boolean;
}

/**
 * One RT device (Registratore Telematico) behind a driver: the service's
 * simulator or a real printer. Each call runs through the signing flow's
 * exchange, so it is bounded by DEVICE_TIMEOUT_MS and gets an abort signal; a
 * failure is a FiscalDeviceError with its phase (1: nothing was printed or
 * recorded; 2: the device may have recorded the document).
 */
export interface RtDriver {
  issueDocument(exchange: DeviceExchange, request: RtDocumentRequest): Promise<RtIssuedDocument>;
  closeDay(exchange: DeviceExchange): Promise<RtDayClosure>;
}

/** `NNNN-NNNN`: fiscal day, then the progressive within it, both zero-padded to 4 (reference §1). */
export const rtDocumentNumber = (fiscalDay: number, progressive: number): string =>
  `${String(fiscalDay).padStart(4, '0')}-${String(progressive).padStart(4, '0')}`;
