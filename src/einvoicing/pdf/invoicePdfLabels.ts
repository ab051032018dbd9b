import type { InvoiceDocumentType } from '../invoiceDocument.js';

/** The words of an invoice's PDF, in the language of its jurisdiction. */
export interface InvoicePdfLabels {
  title: Record<InvoiceDocumentType, string>;
  draft: string;
  number: string;
  date: string;
  seller: string;
  buyer: string;
  vatId: string;
  taxCode: string;
  position: string;
  description: string;
  quantity: string;
  unitPrice: string;
  discount: string;
  net: string;
  vatRate: string;
  vatSummary: string;
  taxable: string;
  tax: string;
  totalNet: string;
  totalTax: string;
  totalGross: string;
  payment: string;
  dueDate: string;
  iban: string;
  installment: string;
  corrects: string;
  purchaseOrder: string;
  contract: string;
  deliveryDate: string;
  buyerReference: string;
  electronicDocument: string;
  authorityIdentifier: string;
  chainHash: string;
  legalNote: string;
}

export const INVOICE_PDF_LABELS: Readonly<Record<'it' | 'de', InvoicePdfLabels>> = {
  it: {
    title: {
      invoice: 'Fattura',
      simplified_invoice: 'Fattura semplificata',
      credit_note: 'Nota di credito',
      debit_note: 'Nota di debito',
      deferred_invoice: 'Fattura differita',
      self_invoice: 'Autofattura',
    },
    draft: 'BOZZA - non è un documento fiscale',
    number: 'Numero',
    date: 'Data',
    seller: 'Cedente / prestatore',
    buyer: 'Cessionario / committente',
    vatId: 'P.IVA',
    taxCode: 'Codice fiscale',
    position: 'N.',
    description: 'Descrizione',
    quantity: 'Quantità',
    unitPrice: 'Prezzo unitario',
    discount: 'Sconto',
    net: 'Importo',
    vatRate: 'IVA',
    vatSummary: 'Riepilogo IVA',
    taxable: 'Imponibile',
    tax: 'Imposta',
    totalNet: 'Totale imponibile',
    totalTax: 'Totale IVA',
    totalGross: 'Totale documento',
    payment: 'Pagamento',
    dueDate: 'Scadenza',
    iban: 'IBAN',
    installment: 'Rata',
    corrects: 'Rettifica la fattura',
    purchaseOrder: 'Ordine di acquisto',
    contract: 'Contratto',
    deliveryDate: 'Data di consegna',
    buyerReference: 'Riferimento del committente',
    electronicDocument: 'File trasmesso',
    authorityIdentifier: 'Identificativo SdI',
    chainHash: 'Hash di catena',
    legalNote: 'Copia di cortesia: il documento fiscalmente valido è il file XML trasmesso tramite il Sistema di Interscambio.',
  },
  de: {
    title: {
      invoice: 'Rechnung',
      simplified_invoice: 'Kleinbetragsrechnung',
      credit_note: 'Gutschrift',
      debit_note: 'Belastungsanzeige',
      deferred_invoice: 'Sammelrechnung',
      self_invoice: 'Gutschrift (Selbstfakturierung)',
    },
    draft: 'ENTWURF - keine Rechnung',
    number: 'Nummer',
    date: 'Datum',
    seller: 'Verkäufer',
    buyer: 'Käufer',
    vatId: 'USt-IdNr.',
    taxCode: 'Steuernummer',
    position: 'Pos.',
    description: 'Bezeichnung',
    quantity: 'Menge',
    unitPrice: 'Einzelpreis',
    discount: 'Rabatt',
    net: 'Netto',
    vatRate: 'USt.',
    vatSummary: 'Umsatzsteuer',
    taxable: 'Nettobetrag',
    tax: 'Steuer',
    totalNet: 'Summe netto',
    totalTax: 'Umsatzsteuer',
    totalGross: 'Gesamtbetrag',
    payment: 'Zahlung',
    dueDate: 'Fällig am',
    iban: 'IBAN',
    installment: 'Rate',
    corrects: 'Bezieht sich auf Rechnung',
    purchaseOrder: 'Bestellung',
    contract: 'Vertrag',
    deliveryDate: 'Lieferdatum',
    buyerReference: 'Käuferreferenz (Leitweg-ID)',
    electronicDocument: 'Elektronische Rechnung',
    authorityIdentifier: 'Kennung',
    chainHash: 'Ketten-Hash',
    legalNote: 'Lesefassung: maßgeblich ist die elektronische Rechnung (XRechnung).',
  },
};
