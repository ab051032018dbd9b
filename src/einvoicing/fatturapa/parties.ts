import type { InvoiceParty } from '../invoiceDocument.js';
import { sedeOf, type Sede } from './sede.js';
import { idFiscaleOf, italianVatDigits, normalizedId, type IdFiscale } from './taxIds.js';

/**
 * RegimeFiscale of the seller. The invoice input names no tax regime, so every seller is in
 * the ordinary regime (RF01); a flat-rate (RF19) or other special-regime seller cannot be
 * expressed yet.
 */
export const REGIME_FISCALE = 'RF01';

/** IdCodice of a foreign buyer who has neither a VAT id nor a tax code. */
export const UNKNOWN_FOREIGN_ID = '99999999999';

export interface CedentePrestatore {
  DatiAnagrafici: {
    IdFiscaleIVA: IdFiscale;
    CodiceFiscale?: string;
    Anagrafica: { Denominazione: string };
    RegimeFiscale: string;
  };
  Sede: Sede;
}

export interface CessionarioCommittente {
  DatiAnagrafici: {
    IdFiscaleIVA?: IdFiscale;
    CodiceFiscale?: string;
    Anagrafica: { Denominazione: string };
  };
  Sede: Sede;
}

/** An Italian party: its address is in Italy, or its VAT id is Italian. */
export const isItalian = (party: InvoiceParty) => party.address.country === 'IT' || italianVatDigits(party.vatId) !== undefined;

export function cedentePrestatoreOf(seller: InvoiceParty): CedentePrestatore {
  const vatDigits = italianVatDigits(seller.vatId);
  if (vatDigits === undefined) throw new RangeError('the seller has no Italian VAT id');
  return {
    DatiAnagrafici: {
      IdFiscaleIVA: { IdPaese: 'IT', IdCodice: vatDigits },
      ...(seller.taxCode ? { CodiceFiscale: normalizedId(seller.taxCode) } : {}),
      Anagrafica: { Denominazione: seller.legalName },
      RegimeFiscale: REGIME_FISCALE,
    },
    Sede: sedeOf(seller.address),
  };
}

/**
 * The buyer. An Italian buyer is identified by VAT id, codice fiscale or both (a consumer by
 * the codice fiscale alone). A foreign buyer has no codice fiscale: the SdI wants an
 * IdFiscaleIVA (00417), so one without a VAT id is identified by its own tax code under its
 * country, or by 99999999999 when it has none.
 */
export function cessionarioCommittenteOf(buyer: InvoiceParty): CessionarioCommittente {
  const Anagrafica = { Denominazione: buyer.legalName };
  const Sede = sedeOf(buyer.address);
  const idFiscaleIva = buyer.vatId ? idFiscaleOf(buyer.vatId) : undefined;
  if (buyer.vatId && idFiscaleIva === undefined) throw new RangeError('the buyer VAT id has not the shape of one');
  if (isItalian(buyer)) {
    return {
      DatiAnagrafici: {
        ...(idFiscaleIva ? { IdFiscaleIVA: idFiscaleIva } : {}),
        ...(buyer.taxCode ? { CodiceFiscale: normalizedId(buyer.taxCode) } : {}),
        Anagrafica,
      },
      Sede,
    };
  }
  return {
    DatiAnagrafici: {
      IdFiscaleIVA: idFiscaleIva ?? { IdPaese: buyer.address.country, IdCodice: buyer.taxCode ? normalizedId(buyer.taxCode) : UNKNOWN_FOREIGN_ID },
      Anagrafica,
    },
    Sede,
  };
}
