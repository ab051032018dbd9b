/**
 * Input of the DSFinV-K builder: plain data per cash point closing (one
 * register session), mapped from the database by the export job. Amounts are
 * decimal strings; instants are Dates and are written in `timezone`.
 */
export interface DsfinvkMasterData {
  /** Z_NR: per register, ascending and gapless. */
  closingNumber: number;
  /** Z_ERSTELLUNG. */
  closedAt: Date;
  /** Booking day YYYY-MM-DD in the location's time zone; written as Z_BUCHUNGSTAG only when it differs from the closing's date. */
  businessDay: string;
  /** IANA zone of the location, for the local timestamps (BON_START, BON_ENDE, Z_ERSTELLUNG, REF_DATUM). */
  timezone: string;
  openedAt: Date;
  register: {
    /** Z_KASSE_ID. */
    id: string;
    name: string;
    /** KASSE_SERIENNR: the TSE client id. */
    clientId: string;
    brand: string;
    model: string;
    software: string;
    softwareVersion: string;
    baseCurrency: string;
  };
  location: { name: string; street: string; postalCode: string; city: string; /** ISO 3166-1 alpha-3 */ countryCode: string };
  company: {
    legalName: string;
    street: string;
    postalCode: string;
    city: string;
    countryCode: string;
    taxNumber: string | null;
    vatId: string | null;
  };
  tse: null | {
    /** TSE_ID: local to the closing. */
    id: number;
    serialNumber: string;
    signatureAlgorithm: string;
    timeFormat: string;
    /** base64 */
    publicKey: string;
    processDataEncoding: 'UTF-8';
  };
  /** Cash in the drawer at session open; used when the session_open operation carries none. */
  openingAmount: string;
}

export interface DsfinvkOperation {
  id: string;
  type: 'sale' | 'return' | 'refund' | 'exchange' | 'session_open' | 'session_cash_adjustment' | 'session_cash_count' | 'session_close';
  status: 'completed' | 'voided' | 'open';
  /** BON_NR: register-scoped, unique. */
  sequenceNumber: number;
  currency: string;
  createdAt: Date;
  completedAt: Date | null;
  voidedAt: Date | null;
  relatedOperation: null | {
    operationId: string;
    sequenceNumber: number | null;
    closingNumber: number | null;
    registerId: string | null;
    createdAt: Date | null;
    /**
     * Z_ERSTELLUNG of the closing that holds the original (REF_DATUM). Not
     * needed when that is the closing being exported; otherwise REF_DATUM stays
     * empty without it.
     */
    closedAt?: Date | null;
  };
  externalRelatedOperation: null | { description: string; externalOperationId: string };
  lineItems: {
    id: string;
    type: 'item' | 'gift_card';
    title: string;
    quantity: number;
    unitPrice: string;
    totalAmount: string;
    skuIdentifier: string;
    taxes: { rate: string; taxAmount: string }[];
    giftCardId: string | null;
  }[];
  cartLevelDiscounts: { id: string; amount: string; description: string | null }[];
  tipAmount: string;
  totalAmount: string;
  pretaxAmount: string;
  taxAmount: string;
  payments: { method: string; amount: string; currency: string; giftCardId: string | null }[];
  session: null | {
    openingAmount?: string;
    amount?: string;
    countedClosingAmount?: string;
    expectedClosingAmount?: string;
    closingCashcountDiff?: string;
    closingAdjustmentAmount?: string | null;
  };
  tse: null | {
    transactionNumber: number;
    startSignatureCounter: number;
    finishSignatureCounter: number;
    /** ISO 8601 UTC with milliseconds and Z, as the TSE logged it. */
    startTime: string;
    endTime: string;
    processType: string;
    processData: string;
    /** base64 */
    signature: string;
  };
}

export interface DsfinvkClosingSource {
  master: DsfinvkMasterData;
  /** The closing's operations in sequence order; may be iterated more than once. */
  operations(): AsyncIterable<DsfinvkOperation>;
}

/** Operation data the format cannot represent (unknown VAT rate, foreign currency, ...); the export fails with it. */
export class DsfinvkDataError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DsfinvkDataError';
  }
}
