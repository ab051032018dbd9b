/**
 * What EN 16931 says per VAT category (UNCL 5305) that both the document and the request's
 * checks need: which categories carry a zero rate, which need an exemption reason (BT-120,
 * BT-121), and which need the seller's (and the buyer's) VAT identifier.
 */
export type VatCategoryCode = 'S' | 'Z' | 'E' | 'AE' | 'K' | 'G' | 'O';

export const VAT_CATEGORY_CODES: readonly VatCategoryCode[] = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O'];

export function isVatCategoryCode(code: string): code is VatCategoryCode {
  return (VAT_CATEGORY_CODES as readonly string[]).includes(code);
}

export interface ExemptionReason {
  /** BT-120. */
  text: string;
  /** BT-121, VATEX; E has none because its code depends on the legal ground, which the request does not carry. */
  code: string | null;
}

/** BR-E-10, BR-AE-10, BR-IC-10, BR-G-10, BR-O-10: these categories state why no VAT is charged. */
const EXEMPTION_REASONS: Partial<Record<VatCategoryCode, ExemptionReason>> = {
  E: { text: 'Umsatzsteuerbefreit', code: null },
  AE: { text: 'Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)', code: 'VATEX-EU-AE' },
  K: { text: 'Steuerfreie innergemeinschaftliche Lieferung', code: 'VATEX-EU-IC' },
  G: { text: 'Steuerfreie Ausfuhrlieferung', code: 'VATEX-EU-G' },
  O: { text: 'Nicht steuerbar', code: 'VATEX-EU-O' },
};

export function exemptionReasonOf(category: VatCategoryCode): ExemptionReason | null {
  return EXEMPTION_REASONS[category] ?? null;
}

/** Every category but S is charged at 0 (BR-Z-05, BR-E-05, BR-AE-05, BR-IC-05, BR-G-05); O carries no rate at all on its lines (BR-O-05). */
export function requiresZeroRate(category: VatCategoryCode): boolean {
  return category !== 'S';
}

/** BR-AE-02, BR-IC-02, BR-G-02: the seller's VAT identifier itself, a tax number does not do. */
export function requiresSellerVatId(category: VatCategoryCode): boolean {
  return category === 'AE' || category === 'K' || category === 'G';
}

/** BR-AE-02, BR-IC-02: the buyer's VAT identifier. */
export function requiresBuyerVatId(category: VatCategoryCode): boolean {
  return category === 'AE' || category === 'K';
}
