/**
 * An invoice as its electronic document needs it: parties resolved (the seller merged over the
 * organization's defaults), every amount derived, in integer minor units of `currency`; rates
 * are decimal fractions as Style O writes them ("0.22"). Formats (FatturaPA, XRechnung) read
 * only this, never the database or the request.
 */
export type InvoiceDocumentType =
  | 'invoice'
  | 'simplified_invoice'
  | 'credit_note'
  | 'debit_note'
  | 'deferred_invoice'
  | 'self_invoice';

export type InvoiceJurisdictionCode = 'IT' | 'DE';

export interface InvoiceAddress {
  line1: string;
  line2: string | null;
  city: string;
  /** Province or state (IT: the two-letter provincia). */
  state: string | null;
  postalCode: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

export interface InvoiceParty {
  legalName: string;
  /** VAT identification number with its country prefix ("IT01234567890", "DE123456789"), or null. */
  vatId: string | null;
  /** National tax code without VAT id: the Italian codice fiscale, the German Steuernummer. */
  taxCode: string | null;
  address: InvoiceAddress;
  contact: { name: string | null; phone: string | null; email: string | null } | null;
  /** Electronic address (XRechnung BT-34 / BT-49). */
  email: string | null;
}

export interface InvoiceDocumentLine {
  /** 1-based. */
  position: number;
  description: string;
  /** Decimal string. */
  quantity: string;
  /** UN/ECE Rec 20 code or free text as sent; null when the request had none. */
  unit: string | null;
  productRef: string | null;
  /** Net price of one unit, minor units. */
  unitPriceNet: number;
  /** The line's discount as an amount in minor units (already resolved from a rate), or null. */
  discount: { amount: number; label: string | null; rate: string | null } | null;
  /** quantity x unitPriceNet - discount. */
  netAmount: number;
  taxAmount: number;
  grossAmount: number;
  vatRate: string;
  /** UNCL 5305 VAT category: S, Z, E, AE, K, G, O. */
  vatCategory: string;
  /** Italian natura code (N1 ... N7, sub-codes allowed) of a zero-rated line, else null. */
  natureCode: string | null;
}

/** One row per (rate, category, natura): what each format's VAT summary prints. */
export interface InvoiceVatBreakdownRow {
  vatRate: string;
  vatCategory: string;
  natureCode: string | null;
  taxableAmount: number;
  taxAmount: number;
}

export interface InvoiceContent {
  jurisdiction: InvoiceJurisdictionCode;
  documentType: InvoiceDocumentType;
  /** YYYY-MM-DD. */
  issueDate: string;
  /** ISO 4217. */
  currency: string;
  seller: InvoiceParty;
  buyer: InvoiceParty;
  lines: InvoiceDocumentLine[];
  vatBreakdown: InvoiceVatBreakdownRow[];
  totals: { net: number; tax: number; gross: number };
  paymentTerms: {
    method: string | null;
    dueDate: string | null;
    iban: string | null;
    installments: { dueDate: string; amount: number }[];
  } | null;
  routing: { codiceDestinatario: string | null; pecAddress: string | null; buyerReference: string | null };
  notes: string[];
  references: {
    /** The invoice a credit or debit note corrects: its number and issue date. */
    originalInvoice: { invoiceNumber: string; issueDate: string } | null;
    purchaseOrderRef: string | null;
    contractRef: string | null;
    /** YYYY-MM-DD. */
    deliveryDate: string | null;
  };
}

/** A submitted invoice: numbered, with the organization's transmission counter for file names. */
export interface InvoiceDocument extends InvoiceContent {
  /** `<series>/<year>/<n>`. */
  invoiceNumber: string;
  /** 1, 2, ... per organization and jurisdiction (IT: the file name's progressivo). */
  transmissionSequence: number;
}
