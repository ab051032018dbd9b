import type { RuleViolation } from '../../domain/violation.js';
import type { InvoiceContent, InvoiceParty } from '../invoiceDocument.js';
import { xrechnungViolation } from './ruleViolation.js';
import { isVatCategoryCode, requiresBuyerVatId, requiresSellerVatId } from './vatCategory.js';

const blank = (value: string | null | undefined) => value === null || value === undefined || value.trim() === '';

/**
 * BR-DE-28's shape of an e-mail address: one "@" with at least one character on each side,
 * neither a space nor a dot next to it, and no dot at either end.
 */
export function isEmailAddress(value: string): boolean {
  return /^(?!\.)[^@\s]*[^@\s.]@[^@\s.][^@\s]*(?<!\.)$/.test(value);
}

/** BR-CO-09: a VAT identifier starts with its country's ISO 3166-1 code (EL for Greece). */
const hasCountryPrefix = (vatId: string) => /^[A-Z]{2}[A-Z0-9+*.]{2,}$/.test(vatId.replace(/\s+/g, ''));

function addressViolations(party: InvoiceParty, role: 'seller' | 'buyer'): RuleViolation[] {
  const { address } = party;
  const [cityRule, postCodeRule, countryRule] = role === 'seller' ? ['BR-DE-3', 'BR-DE-4', 'BR-09'] : ['BR-DE-8', 'BR-DE-9', 'BR-11'];
  return [
    ...(blank(address.city) ? [xrechnungViolation(`${role}.address.city`, cityRule, `The ${role}'s address needs a city`)] : []),
    ...(blank(address.postalCode) ? [xrechnungViolation(`${role}.address.postal_code`, postCodeRule, `The ${role}'s address needs a post code`)] : []),
    ...(!/^[A-Z]{2}$/.test(address.country)
      ? [xrechnungViolation(`${role}.address.country`, countryRule, `The ${role}'s country must be an ISO 3166-1 alpha-2 code`)]
      : []),
  ];
}

function electronicAddressViolations(party: InvoiceParty, role: 'seller' | 'buyer'): RuleViolation[] {
  // XRechnung 3 takes over Peppol's requirement of both electronic addresses (BT-34, BT-49).
  const rule = role === 'seller' ? 'PEPPOL-EN16931-R020' : 'PEPPOL-EN16931-R010';
  if (blank(party.email)) return [xrechnungViolation(`${role}.email`, rule, `The ${role}'s electronic address (an e-mail address) is required`)];
  if (!isEmailAddress(party.email!.trim())) return [xrechnungViolation(`${role}.email`, rule, `The ${role}'s electronic address is not an e-mail address`)];
  return [];
}

/** BG-6, which XRechnung requires whole: a name (BR-DE-5), a phone number with at least three digits (BR-DE-6, BR-DE-27) and an e-mail address (BR-DE-7, BR-DE-28). */
function sellerContactViolations(contact: InvoiceParty['contact']): RuleViolation[] {
  const violations: RuleViolation[] = [];
  if (blank(contact?.name)) violations.push(xrechnungViolation('seller.contact.name', 'BR-DE-5', "The seller's contact needs a name"));
  if (blank(contact?.phone)) {
    violations.push(xrechnungViolation('seller.contact.phone', 'BR-DE-6', "The seller's contact needs a phone number"));
  } else if ((contact!.phone!.match(/\d/g) ?? []).length < 3) {
    violations.push(xrechnungViolation('seller.contact.phone', 'BR-DE-27', "The seller's contact phone number needs at least three digits"));
  }
  if (blank(contact?.email)) {
    violations.push(xrechnungViolation('seller.contact.email', 'BR-DE-7', "The seller's contact needs an e-mail address"));
  } else if (!isEmailAddress(contact!.email!.trim())) {
    violations.push(xrechnungViolation('seller.contact.email', 'BR-DE-28', "The seller's contact e-mail address is not an e-mail address"));
  }
  return violations;
}

/**
 * What identifies the seller for VAT. Some VAT identifier or tax number always (BR-DE-16,
 * BR-S-02 ...); the VAT identifier itself for reverse charge, intra-community supplies and
 * exports (BR-AE-02, BR-IC-02, BR-G-02); and on a "not subject to VAT" invoice, which may show
 * no VAT identifier (BR-O-02), the tax number, since BR-CO-26 needs some seller identifier.
 */
function sellerTaxIdViolations(invoice: InvoiceContent): RuleViolation[] {
  const { seller } = invoice;
  const categories = new Set(invoice.lines.map((line) => line.vatCategory).filter(isVatCategoryCode));
  if (blank(seller.vatId) && blank(seller.taxCode)) {
    return [xrechnungViolation('seller.tax_id', 'BR-DE-16', 'The seller needs a VAT identifier or a tax number (Steuernummer)')];
  }
  if (!blank(seller.vatId) && !hasCountryPrefix(seller.vatId!)) {
    return [xrechnungViolation('seller.tax_id', 'BR-CO-09', "The seller's VAT identifier must start with its country code")];
  }
  const needsVatId = [...categories].find(requiresSellerVatId);
  if (needsVatId && blank(seller.vatId)) {
    return [xrechnungViolation('seller.tax_id', `BR-${needsVatId === 'K' ? 'IC' : needsVatId}-02`, `A line in VAT category ${needsVatId} needs the seller's VAT identifier`)];
  }
  if (categories.has('O') && blank(seller.taxCode)) {
    return [
      xrechnungViolation('seller.tax_id', 'BR-CO-26', 'A "not subject to VAT" invoice shows no VAT identifier (BR-O-02), so the seller needs a tax number (Steuernummer)'),
    ];
  }
  return [];
}

function buyerTaxIdViolations(invoice: InvoiceContent): RuleViolation[] {
  const { buyer } = invoice;
  if (!blank(buyer.vatId) && !hasCountryPrefix(buyer.vatId!)) {
    return [xrechnungViolation('buyer.tax_id', 'BR-CO-09', "The buyer's VAT identifier must start with its country code")];
  }
  const needsVatId = invoice.lines.map((line) => line.vatCategory).filter(isVatCategoryCode).find(requiresBuyerVatId);
  if (needsVatId && blank(buyer.vatId)) {
    return [xrechnungViolation('buyer.tax_id', `BR-${needsVatId === 'K' ? 'IC' : needsVatId}-02`, `A line in VAT category ${needsVatId} needs the buyer's VAT identifier`)];
  }
  return [];
}

/** Seller and buyer as XRechnung needs them. */
export function partyViolations(invoice: InvoiceContent): RuleViolation[] {
  return [
    ...(blank(invoice.seller.legalName) ? [xrechnungViolation('seller.legal_name', 'BR-06', 'The seller needs a name')] : []),
    ...addressViolations(invoice.seller, 'seller'),
    ...sellerContactViolations(invoice.seller.contact),
    ...electronicAddressViolations(invoice.seller, 'seller'),
    ...sellerTaxIdViolations(invoice),
    ...(blank(invoice.buyer.legalName) ? [xrechnungViolation('buyer.legal_name', 'BR-07', 'The buyer needs a name')] : []),
    ...addressViolations(invoice.buyer, 'buyer'),
    ...electronicAddressViolations(invoice.buyer, 'buyer'),
    ...buyerTaxIdViolations(invoice),
  ];
}
