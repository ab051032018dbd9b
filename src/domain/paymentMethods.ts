/**
 * What a payment's `method` means. The contract keeps `method` a free string
 * (2.2, `gift_card` defined), so any text is accepted and stored as sent; the
 * methods below carry meaning wherever the service has to know how money
 * moved: the drawer's cash count, the TSE's processData, the DSFinV-K export,
 * gift-card redemption. They are matched as people write them: trimmed, any
 * case, a space or hyphen for the underscore (`Cash`, ` Debit Card`,
 * `credit-card`). Every other method is a non-cash payment of its own name.
 */

/** How money moved: cash in the drawer, a card at the terminal, a gift card redeemed, an electronic service, or other non-cash. */
export type PaymentKind = 'cash' | 'card' | 'gift_card' | 'electronic' | 'other';

/**
 * DSFinV-K ZAHLART_TYP (reference dsfinvk §9). `Guthabenkarte` is not among
 * them: a stored-value medium is sold and redeemed here as a gift card, a
 * multi-purpose voucher (contract 2.5), whose redemption is a business case.
 */
export type ZahlartTyp = 'Bar' | 'Unbar' | 'ECKarte' | 'Kreditkarte' | 'ElZahlungsdienstleister';

/** The two payment classes of Kassenbeleg-V1 processData (reference kassensichv): cash and everything else. */
export type TsePaymentClass = 'Bar' | 'Unbar';

interface KnownMethod {
  kind: PaymentKind;
  /** null: not a payment type in DSFinV-K (a gift card redeemed is a MehrzweckgutscheinEinloesung line). */
  zahlart: ZahlartTyp | null;
  /** Other names it is known by (German), matched like the method itself. */
  aliases: readonly string[];
}

/** The known methods; their names are what the export writes as ZAHLART_NAME. */
export const PAYMENT_METHODS: Readonly<Record<string, KnownMethod>> = {
  cash: { kind: 'cash', zahlart: 'Bar', aliases: ['bar', 'bargeld'] },
  card: { kind: 'card', zahlart: 'Unbar', aliases: [] },
  debit_card: { kind: 'card', zahlart: 'ECKarte', aliases: ['ec_card', 'ec_karte'] },
  girocard: { kind: 'card', zahlart: 'ECKarte', aliases: [] },
  credit_card: { kind: 'card', zahlart: 'Kreditkarte', aliases: ['kreditkarte'] },
  gift_card: { kind: 'gift_card', zahlart: null, aliases: [] },
  paypal: { kind: 'electronic', zahlart: 'ElZahlungsdienstleister', aliases: [] },
  // A wallet pays with a card and an online payment through some provider: which type is not known.
  wallet: { kind: 'electronic', zahlart: 'Unbar', aliases: [] },
  online: { kind: 'electronic', zahlart: 'Unbar', aliases: [] },
  // Single- or multi-purpose is not known, so a voucher stays a non-cash payment.
  voucher: { kind: 'other', zahlart: 'Unbar', aliases: [] },
};

export interface PaymentMethod {
  /** The table's name of a known method; an unknown one as sent, trimmed and in lower case. */
  name: string;
  known: boolean;
  kind: PaymentKind;
  zahlart: ZahlartTyp | null;
  tse: TsePaymentClass;
}

const matchable = (method: string) => method.trim().toLowerCase().replace(/[\s-]+/g, '_');

const BY_SPELLING: ReadonlyMap<string, string> = new Map(
  Object.entries(PAYMENT_METHODS).flatMap(([name, known]) => [name, ...known.aliases].map((spelling) => [spelling, name] as const)),
);

export function paymentMethodOf(method: string): PaymentMethod {
  const name = BY_SPELLING.get(matchable(method));
  if (name === undefined) {
    return { name: method.trim().toLowerCase(), known: false, kind: 'other', zahlart: 'Unbar', tse: 'Unbar' };
  }
  const { kind, zahlart } = PAYMENT_METHODS[name];
  return { name, known: true, kind, zahlart, tse: kind === 'cash' ? 'Bar' : 'Unbar' };
}

/** Only cash moves the drawer. */
export const isCashPayment = (method: string): boolean => paymentMethodOf(method).kind === 'cash';

/** A gift card redeemed: it needs its gift_card_id (contract 4.2 rule 8) and is no payment type in DSFinV-K. */
export const isGiftCardPayment = (method: string): boolean => paymentMethodOf(method).kind === 'gift_card';
