/**
 * The 20 DSFinV-K tables (reference dsfinvk.md §4) in the order of the
 * published index.xml: file name, logical name and columns with their GDPdU
 * type, MaxLength (AlphaNumeric, in characters) or Accuracy (Numeric).
 */
export interface AlphaNumericColumn<N extends string = string> {
  readonly name: N;
  readonly description: string;
  readonly type: 'AlphaNumeric';
  readonly maxLength: number;
}

export interface NumericColumn<N extends string = string> {
  readonly name: N;
  readonly description: string;
  readonly type: 'Numeric';
  /** index.xml <Accuracy> and the exact number of places the CSV writer writes; 0 = integer, declared as <Numeric />. */
  readonly accuracy: number;
}

export type ColumnSpec<N extends string = string> = AlphaNumericColumn<N> | NumericColumn<N>;

export interface TableSpec {
  readonly file: string;
  readonly name: string;
  readonly columns: readonly ColumnSpec[];
}

const an = <N extends string>(name: N, maxLength: number, description: string): AlphaNumericColumn<N> => ({
  name,
  description,
  type: 'AlphaNumeric',
  maxLength,
});

const num = <N extends string>(name: N, accuracy: number, description: string): NumericColumn<N> => ({
  name,
  description,
  type: 'Numeric',
  accuracy,
});

/** Z_KASSE_ID, Z_ERSTELLUNG, Z_NR: the closing keys every table starts with. */
const CLOSING_KEYS = [
  an('Z_KASSE_ID', 50, 'ID der (Abschluss-) Kasse'),
  an('Z_ERSTELLUNG', 30, 'Zeitpunkt des Kassenabschlusses'),
  num('Z_NR', 0, 'Nr. des Kassenabschlusses'),
] as const;

const BON_ID = an('BON_ID', 40, 'Vorgangs-ID');
const POS_ZEILE = an('POS_ZEILE', 50, 'Zeilennummer');
const UST_SCHLUESSEL = num('UST_SCHLUESSEL', 0, 'ID des Umsatzsteuersatzes');

export const TABLES = [
  {
    file: 'cashpointclosing.csv',
    name: 'Stamm_Abschluss',
    columns: [
      ...CLOSING_KEYS,
      an('Z_BUCHUNGSTAG', 25, 'Vom Erstellungsdatum abweichender Verbuchungstag'),
      an('TAXONOMIE_VERSION', 10, 'Version der DFKA-Taxonomie-Kasse'),
      an('Z_START_ID', 40, 'Erste BON_ID im Abschluss'),
      an('Z_ENDE_ID', 40, 'Letzte BON_ID im Abschluss'),
      an('NAME', 60, 'Name des Unternehmens'),
      an('STRASSE', 60, 'Straße'),
      an('PLZ', 10, 'Postleitzahl'),
      an('ORT', 62, 'Ort'),
      an('LAND', 3, 'Land'),
      an('STNR', 20, 'Steuernummer des Unternehmens'),
      an('USTID', 15, 'USTID'),
      num('Z_SE_ZAHLUNGEN', 2, 'Summe aller Zahlungen'),
      num('Z_SE_BARZAHLUNGEN', 2, 'Summe aller Barzahlungen'),
    ],
  },
  {
    file: 'location.csv',
    name: 'Stamm_Orte',
    columns: [
      ...CLOSING_KEYS,
      an('LOC_NAME', 60, 'Name des Standortes'),
      an('LOC_STRASSE', 60, 'Straße'),
      an('LOC_PLZ', 10, 'Postleitzahl'),
      an('LOC_ORT', 62, 'Ort'),
      an('LOC_LAND', 3, 'Land'),
      an('LOC_USTID', 15, 'USTID'),
    ],
  },
  {
    file: 'cashregister.csv',
    name: 'Stamm_Kassen',
    columns: [
      ...CLOSING_KEYS,
      an('KASSE_BRAND', 50, 'Marke der Kasse'),
      an('KASSE_MODELL', 50, 'Modellbezeichnung'),
      an('KASSE_SERIENNR', 70, 'Seriennummer der Kasse'),
      an('KASSE_SW_BRAND', 50, 'Markenbezeichnung der Software'),
      an('KASSE_SW_VERSION', 50, 'Version der Software'),
      an('KASSE_BASISWAEH_CODE', 3, 'Basiswährung der Kasse'),
      an('KEINE_UST_ZUORDNUNG', 1, 'UmsatzsteuerNichtErmittelbar'),
    ],
  },
  {
    file: 'slaves.csv',
    name: 'Stamm_Terminals',
    columns: [
      ...CLOSING_KEYS,
      an('TERMINAL_ID', 50, 'ID des Terminals'),
      an('TERMINAL_BRAND', 50, 'Marke der Terminals'),
      an('TERMINAL_MODELL', 50, 'Modellbezeichnung des Terminals'),
      an('TERMINAL_SERIENNR', 70, 'Seriennummer des Terminals'),
      an('TERMINAL_SW_BRAND', 50, 'Markenbezeichnung der Software'),
      an('TERMINAL_SW_VERSION', 50, 'Version der Software'),
    ],
  },
  {
    file: 'pa.csv',
    name: 'Stamm_Agenturen',
    columns: [
      ...CLOSING_KEYS,
      num('AGENTUR_ID', 0, 'ID der Agentur'),
      an('AGENTUR_NAME', 60, 'Name des Auftraggebers'),
      an('AGENTUR_STRASSE', 60, 'Straße'),
      an('AGENTUR_PLZ', 10, 'Postleitzahl'),
      an('AGENTUR_ORT', 62, 'Ort'),
      an('AGENTUR_LAND', 3, 'Land'),
      an('AGENTUR_STNR', 20, 'Steuernummer des Auftraggebers'),
      an('AGENTUR_USTID', 15, 'USTID des Auftraggebers'),
    ],
  },
  {
    file: 'tse.csv',
    name: 'Stamm_TSE',
    columns: [
      ...CLOSING_KEYS,
      num('TSE_ID', 0, 'ID der TSE, nur zur Referenzierung innerhalb eines Kassenabschlusses'),
      an('TSE_SERIAL', 68, 'Seriennummer der TSE'),
      an('TSE_SIG_ALGO', 21, 'Signaturalgorithmus der TSE'),
      an('TSE_ZEITFORMAT', 31, 'Format der Log-Time der TSE'),
      an('TSE_PD_ENCODING', 5, 'Text-Encoding der ProcessData (UTF-8 oder ASCII)'),
      an('TSE_PUBLIC_KEY', 512, 'Öffentlicher Schlüssel der TSE in base64-Codierung'),
      an('TSE_ZERTIFIKAT_I', 1000, 'Erste 1000 Zeichen des base64-codierten Zertifikats der TSE'),
      an('TSE_ZERTIFIKAT_II', 1000, 'Ggf. Rest des base64-codierten Zertifikats der TSE'),
    ],
  },
  {
    file: 'vat.csv',
    name: 'Stamm_USt',
    columns: [
      ...CLOSING_KEYS,
      UST_SCHLUESSEL,
      num('UST_SATZ', 2, 'Prozentsatz'),
      an('UST_BESCHR', 55, 'Beschreibung'),
    ],
  },
  {
    file: 'businesscases.csv',
    name: 'Z_GV_Typ',
    columns: [
      ...CLOSING_KEYS,
      an('GV_TYP', 30, 'Geschäftsvorfall-Art'),
      an('GV_NAME', 40, 'Name des Geschäftsvorfalls'),
      num('AGENTUR_ID', 0, 'ID der Agentur'),
      UST_SCHLUESSEL,
      num('Z_UMS_BRUTTO', 5, 'Bruttoumsatz'),
      num('Z_UMS_NETTO', 5, 'Nettoumsatz'),
      num('Z_UST', 5, 'Umsatzsteuer'),
    ],
  },
  {
    file: 'payment.csv',
    name: 'Z_Zahlart',
    columns: [
      ...CLOSING_KEYS,
      an('ZAHLART_TYP', 25, 'Typ der Zahlart'),
      an('ZAHLART_NAME', 60, 'Name der Zahlart'),
      num('Z_ZAHLART_BETRAG', 2, 'Betrag'),
    ],
  },
  {
    file: 'cash_per_currency.csv',
    name: 'Z_Waehrungen',
    columns: [...CLOSING_KEYS, an('ZAHLART_WAEH', 3, 'Währung'), num('ZAHLART_BETRAG_WAEH', 2, 'Betrag')],
  },
  {
    file: 'transactions.csv',
    name: 'Bonkopf',
    columns: [
      ...CLOSING_KEYS,
      BON_ID,
      num('BON_NR', 0, 'Bonnummer'),
      an('BON_TYP', 30, 'Bontyp'),
      an('BON_NAME', 60, 'Zusatz-Beschreibung zum Bontyp'),
      an('TERMINAL_ID', 50, 'ID des Erfassungsterminals'),
      an('BON_STORNO', 1, 'Storno-Kennzeichen'),
      an('BON_START', 30, 'Zeitpunkt des Vorgangsstarts'),
      an('BON_ENDE', 30, 'Zeitpunkt der Vorgangsbeendigung'),
      an('BEDIENER_ID', 50, 'Bediener-ID'),
      an('BEDIENER_NAME', 50, 'Bediener-Name'),
      num('UMS_BRUTTO', 2, 'Brutto-Gesamtumsatz'),
      an('KUNDE_NAME', 50, 'Name des Leistungsempfängers'),
      an('KUNDE_ID', 50, 'Kundennummer des Leistungsempfängers'),
      an('KUNDE_TYP', 50, 'Art des Leistungsempfängers'),
      an('KUNDE_STRASSE', 60, 'Straße und Hausnummer des Leistungsempfängers'),
      an('KUNDE_PLZ', 10, 'PLZ des Leistungsempfängers'),
      an('KUNDE_ORT', 62, 'Ort des Leistungsempfängers'),
      an('KUNDE_LAND', 3, 'Land des Leistungsempfängers'),
      an('KUNDE_USTID', 15, 'UStID des Leistungsempfängers'),
      an('BON_NOTIZ', 255, 'Zusätzliche Informationen zum Bonkopf'),
    ],
  },
  {
    file: 'datapayment.csv',
    name: 'Bonkopf_Zahlarten',
    columns: [
      ...CLOSING_KEYS,
      BON_ID,
      an('ZAHLART_TYP', 25, 'Typ der Zahlart'),
      an('ZAHLART_NAME', 60, 'Name der Zahlart'),
      an('ZAHLWAEH_CODE', 3, 'Währungscode'),
      num('ZAHLWAEH_BETRAG', 2, 'Betrag in Fremdwährung'),
      num('BASISWAEH_BETRAG', 2, 'Betrag in Basiswährung'),
    ],
  },
  {
    file: 'lines.csv',
    name: 'Bonpos',
    columns: [
      ...CLOSING_KEYS,
      BON_ID,
      POS_ZEILE,
      an('GUTSCHEIN_NR', 50, 'Gutschein-Nr.'),
      an('ARTIKELTEXT', 255, 'Artikeltext'),
      an('POS_TERMINAL_ID', 50, 'ID des POS-Terminals'),
      an('GV_TYP', 30, 'Geschäftsvorfall-Art'),
      an('GV_NAME', 40, 'Name des Geschäftsvorfalls'),
      an('INHAUS', 1, 'Verzehr an Ort und Stelle'),
      an('P_STORNO', 1, 'Positionsstorno-Kennzeichnung'),
      num('AGENTUR_ID', 0, 'ID der Agentur'),
      an('ART_NR', 50, 'Artikelnummer'),
      an('GTIN', 50, 'GTIN'),
      an('WARENGR_ID', 40, 'Warengruppen-ID'),
      an('WARENGR', 50, 'Bezeichnung Warengruppe'),
      num('MENGE', 3, 'Menge'),
      num('FAKTOR', 3, 'Faktor, z. B. Gebindegrößen'),
      an('EINHEIT', 50, 'Maßeinheit, z. B. kg, Liter oder Stück'),
      num('STK_BR', 5, 'Preis pro Einheit inkl. USt'),
    ],
  },
  {
    file: 'itemamounts.csv',
    name: 'Bonpos_Preisfindung',
    columns: [
      ...CLOSING_KEYS,
      BON_ID,
      POS_ZEILE,
      an('TYP', 20, 'Basispreis, Rabatt oder Zuschlag'),
      UST_SCHLUESSEL,
      num('PF_BRUTTO', 5, 'Bruttoumsatz'),
      num('PF_NETTO', 5, 'Nettoumsatz'),
      num('PF_UST', 5, 'Umsatzsteuer'),
    ],
  },
  {
    file: 'subitems.csv',
    name: 'Bonpos_Zusatzinfo',
    columns: [
      ...CLOSING_KEYS,
      BON_ID,
      POS_ZEILE,
      an('ZI_ART_NR', 50, 'Artikelnummer'),
      an('ZI_GTIN', 50, 'GTIN'),
      an('ZI_NAME', 60, 'Artikelbezeichnung'),
      an('ZI_WARENGR_ID', 40, 'Warengruppen-ID'),
      an('ZI_WARENGR', 50, 'Bezeichnung Warengruppe'),
      num('ZI_MENGE', 3, 'Menge'),
      num('ZI_FAKTOR', 3, 'Faktor, z. B. Gebindegrößen'),
      an('ZI_EINHEIT', 50, 'Maßeinheit, z. B. kg, Liter oder Stück'),
      num('ZI_UST_SCHLUESSEL', 0, 'ID USt-Satz des Basispreises'),
      num('ZI_BASISPREIS_BRUTTO', 5, 'Basispreis brutto'),
      num('ZI_BASISPREIS_NETTO', 5, 'Basispreis netto'),
      num('ZI_BASISPREIS_UST', 5, 'Basispreis USt'),
    ],
  },
  {
    file: 'transactions_tse.csv',
    name: 'TSE_Transaktionen',
    columns: [
      ...CLOSING_KEYS,
      BON_ID,
      num('TSE_ID', 0, 'ID der für die Transaktion verwendeten TSE'),
      num('TSE_TANR', 0, 'Transaktionsnummer der TSE-Transaktion'),
      an('TSE_TA_START', 30, 'Log-Time der StartTransaction-Operation'),
      an('TSE_TA_ENDE', 30, 'Log-Time der FinishTransaction-Operation'),
      an('TSE_TA_VORGANGSART', 30, 'processType der FinishTransaction-Operation'),
      num('TSE_TA_SIGZ', 0, 'Signaturzähler der FinishTransaction-Operation'),
      an('TSE_TA_SIG', 512, 'Signatur der FinishTransaction-Operation'),
      an('TSE_TA_FEHLER', 200, 'Beschreibung des TSE-Ausfalls oder Fehlers'),
      an('TSE_VORGANGSDATEN', 1000, 'An die TSE übergebene Daten des Vorgangs (optional)'),
    ],
  },
  {
    file: 'transactions_vat.csv',
    name: 'Bonkopf_USt',
    columns: [
      ...CLOSING_KEYS,
      BON_ID,
      UST_SCHLUESSEL,
      num('BON_BRUTTO', 5, 'Bruttoumsatz'),
      num('BON_NETTO', 5, 'Nettoumsatz'),
      num('BON_UST', 5, 'Umsatzsteuer'),
    ],
  },
  {
    file: 'lines_vat.csv',
    name: 'Bonpos_USt',
    columns: [
      ...CLOSING_KEYS,
      BON_ID,
      POS_ZEILE,
      UST_SCHLUESSEL,
      num('POS_BRUTTO', 5, 'Bruttoumsatz'),
      num('POS_NETTO', 5, 'Nettoumsatz'),
      num('POS_UST', 5, 'Umsatzsteuer'),
    ],
  },
  {
    file: 'allocation_groups.csv',
    name: 'Bonkopf_AbrKreis',
    columns: [...CLOSING_KEYS, BON_ID, an('ABRECHNUNGSKREIS', 50, 'Abrechnungskreis, z. B. Tischnummer')],
  },
  {
    file: 'references.csv',
    name: 'Bon_Referenzen',
    columns: [
      ...CLOSING_KEYS,
      BON_ID,
      an('POS_ZEILE', 50, 'Zeilennummer des referenzierenden Vorgangs (nicht bei Verweis aus dem Bonkopf)'),
      an('REF_TYP', 20, 'Art der Referenz'),
      an('REF_NAME', 40, 'Beschreibung bei Art ExterneSonstige'),
      an('REF_DATUM', 30, 'Datum des Kassenabschlusses'),
      an('REF_Z_KASSE_ID', 50, 'ID der (Abschluss-) Kasse'),
      num('REF_Z_NR', 0, 'Nr. des Kassenabschlusses'),
      an('REF_BON_ID', 40, 'Vorgangs-ID'),
    ],
  },
] as const satisfies readonly TableSpec[];

export type DsfinvkTable = (typeof TABLES)[number];
export type TableFile = DsfinvkTable['file'];
/** Column names of one table, so that a misspelt column is a compile error. */
export type ColumnOf<F extends TableFile> = Extract<DsfinvkTable, { file: F }>['columns'][number]['name'];
