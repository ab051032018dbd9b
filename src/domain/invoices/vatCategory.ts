import { Decimal } from 'decimal.js';

/**
 * VAT categories of UNCL 5305 as EN 16931 uses them: S standard or reduced rate, Z zero
 * rated, E exempt, AE reverse charge, K intra-community supply, G export outside the EU,
 * O outside the scope of VAT.
 */
export const VAT_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O'] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

/** An Italian natura code: N1 ... N7, with the sub-codes of FatturaPA 1.2 (N2.1, N3.5, N6.9). */
export const NATURE_CODE_PATTERN = /^N(1|2(\.[12])?|3(\.[1-6])?|4|5|6(\.[1-9])?|7)$/;

/**
 * The category a natura code stands for: excluded (N1) and not subject (N2) operations are
 * outside the scope; exports and their equivalents (N3.1, N3.3, N3.4) are G, intra-community
 * supplies (N3.2) K, the other non-taxable ones (N3.5 against a declaration of intent, N3.6)
 * Z; exempt (N4) and the margin scheme (N5) are E; reverse charge (N6.x) AE; VAT due in
 * another EU state (N7) is O.
 */
function categoryOfNature(natureCode: string): VatCategory {
  if (natureCode === 'N1' || natureCode.startsWith('N2') || natureCode === 'N7') return 'O';
  if (natureCode === 'N3.2') return 'K';
  if (natureCode === 'N3' || natureCode === 'N3.1' || natureCode === 'N3.3' || natureCode === 'N3.4') return 'G';
  if (natureCode.startsWith('N3')) return 'Z';
  if (natureCode.startsWith('N6')) return 'AE';
  return 'E';
}

/**
 * The VAT category of a line: the one the request names, else from the rate and natura code:
 * a positive rate is S, rate 0 with a natura code the natura's category, rate 0 without one Z.
 */
export function vatCategoryOf(rate: string, natureCode: string | null, requested?: VatCategory | null): VatCategory {
  if (requested) return requested;
  if (!new Decimal(rate).isZero()) return 'S';
  return natureCode ? categoryOfNature(natureCode) : 'Z';
}

/** Why a requested category cannot go with the rate: S needs a positive rate, every other category rate 0. */
export function vatCategoryMismatch(rate: string, category: VatCategory): string | null {
  const positive = !new Decimal(rate).isZero();
  if (category === 'S' && !positive) return 'category S (standard) needs a positive rate';
  if (category !== 'S' && positive) return `category ${category} needs rate 0`;
  return null;
}
