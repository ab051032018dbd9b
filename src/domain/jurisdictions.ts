/**
 * The jurisdictions the service serves, two-letter as Style O writes them: the countries of
 * its fiscal regimes (KassenSichV, RKSV, RT), where certificates and portal credentials apply.
 */
export const JURISDICTIONS = ['AT', 'DE', 'IT'] as const;
export type Jurisdiction = (typeof JURISDICTIONS)[number];
