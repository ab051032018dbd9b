import type { InvoiceAddress, InvoiceParty } from '../invoiceDocument.js';
import type { XmlNode } from './xmlNode.js';

/** Leaves out an element whose value is null or blank: CII forbids empty elements. */
const present = (value: string | null | undefined): value is string => value !== null && value !== undefined && value.trim() !== '';

/** BG-5 / BG-8 / BG-15. */
export function postalTradeAddress(address: InvoiceAddress): XmlNode {
  return {
    ...(present(address.postalCode) ? { 'ram:PostcodeCode': address.postalCode } : {}),
    ...(present(address.line1) ? { 'ram:LineOne': address.line1 } : {}),
    ...(present(address.line2) ? { 'ram:LineTwo': address.line2 } : {}),
    ...(present(address.city) ? { 'ram:CityName': address.city } : {}),
    'ram:CountryID': address.country,
    ...(present(address.state) ? { 'ram:CountrySubDivisionName': address.state } : {}),
  };
}

/** BG-6 / BG-9: null when the party names no contact at all. */
function definedTradeContact(contact: InvoiceParty['contact']): XmlNode | null {
  if (!contact || !(present(contact.name) || present(contact.phone) || present(contact.email))) return null;
  return {
    ...(present(contact.name) ? { 'ram:PersonName': contact.name.trim() } : {}),
    ...(present(contact.phone) ? { 'ram:TelephoneUniversalCommunication': { 'ram:CompleteNumber': contact.phone.trim() } } : {}),
    ...(present(contact.email) ? { 'ram:EmailURIUniversalCommunication': { 'ram:URIID': contact.email.trim() } } : {}),
  };
}

export interface TradePartyOptions {
  /** BT-31 / BT-48: false on a "not subject to VAT" invoice, which must not show VAT identifiers (BR-O-02). */
  withVatId: boolean;
  /** BT-32 (schemeID FC): the seller's tax number; EN 16931 has no buyer tax number. */
  withTaxCode: boolean;
}

/**
 * BG-4 seller or BG-7 buyer. The electronic address (BT-34 / BT-49) is an e-mail address,
 * scheme EM. A seller known only by its tax number also shows it as seller identifier BT-29,
 * because BR-CO-26 wants BT-29, BT-30 or BT-31 to identify the seller and BT-32 is none of them.
 */
export function tradeParty(party: InvoiceParty, options: TradePartyOptions): XmlNode {
  const vatId = options.withVatId && present(party.vatId) ? party.vatId : null;
  const taxCode = options.withTaxCode && present(party.taxCode) ? party.taxCode : null;
  const contact = definedTradeContact(party.contact);
  const registrations = [
    ...(vatId ? [{ 'ram:ID': { '@_schemeID': 'VA', '#text': vatId } }] : []),
    ...(taxCode ? [{ 'ram:ID': { '@_schemeID': 'FC', '#text': taxCode } }] : []),
  ];
  return {
    ...(taxCode && !vatId ? { 'ram:ID': taxCode } : {}),
    'ram:Name': party.legalName,
    ...(contact ? { 'ram:DefinedTradeContact': contact } : {}),
    'ram:PostalTradeAddress': postalTradeAddress(party.address),
    ...(present(party.email) ? { 'ram:URIUniversalCommunication': { 'ram:URIID': { '@_schemeID': 'EM', '#text': party.email.trim() } } } : {}),
    ...(registrations.length ? { 'ram:SpecifiedTaxRegistration': registrations } : {}),
  };
}
