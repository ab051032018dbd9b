import { XMLBuilder } from 'fast-xml-parser';
import type { BuiltInvoiceDocument } from '../einvoiceFormat.js';
import type { InvoiceContent, InvoiceDocument, InvoiceDocumentLine } from '../invoiceDocument.js';
import { amount2, percentage } from './amounts.js';
import { tipoDocumentoOf } from './documentType.js';
import { fatturaPaFileName } from './fileName.js';
import { lineAmountsOf } from './lineAmounts.js';
import { datiPagamentoOf } from './pagamento.js';
import { cedentePrestatoreOf, cessionarioCommittenteOf } from './parties.js';
import { progressivoOf } from './progressivo.js';
import { datiRiepilogoOf } from './riepilogo.js';
import { italianVatDigits } from './taxIds.js';
import { NO_RECIPIENT_CODE, transmissionFormatOf } from './transmissionFormat.js';
import { chunks, textProblem } from './xmlText.js';

export const FATTURAPA_NAMESPACE = 'http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fatture/v1.2';

/** Causale is String200Latin and repeatable: each note is written in pieces of this size. */
export const CAUSALE_LENGTH = 200;

/** Numero and IdDocumento are String20 (ASCII). */
export const NUMERO_LENGTH = 20;

/** CodiceArticolo's CodiceTipo for the seller's own product reference. */
export const PRODUCT_REF_TYPE = 'INTERNO';

function numeroOf(invoiceNumber: string): string {
  const problem = textProblem(invoiceNumber, 'ascii', NUMERO_LENGTH);
  if (problem) throw new RangeError(`invoice number ${JSON.stringify(invoiceNumber)} ${problem}`);
  return invoiceNumber;
}

function datiGeneraliOf(invoice: InvoiceDocument) {
  const { references } = invoice;
  const collegata = invoice.documentType === 'credit_note' || invoice.documentType === 'debit_note' ? references.originalInvoice : null;
  return {
    DatiGeneraliDocumento: {
      TipoDocumento: tipoDocumentoOf(invoice.documentType),
      Divisa: invoice.currency,
      Data: invoice.issueDate,
      Numero: numeroOf(invoice.invoiceNumber),
      ImportoTotaleDocumento: amount2(invoice.totals.gross, invoice.currency),
      Causale: invoice.notes.flatMap((note) => chunks(note, CAUSALE_LENGTH)),
    },
    ...(references.purchaseOrderRef ? { DatiOrdineAcquisto: { IdDocumento: references.purchaseOrderRef } } : {}),
    ...(references.contractRef ? { DatiContratto: { IdDocumento: references.contractRef } } : {}),
    ...(collegata ? { DatiFattureCollegate: { IdDocumento: numeroOf(collegata.invoiceNumber), Data: collegata.issueDate } } : {}),
  };
}

function datiBeniServiziOf(invoice: InvoiceContent) {
  const lines = invoice.lines.map((line: InvoiceDocumentLine) => ({ line, amounts: lineAmountsOf(line, invoice.currency), aliquotaIva: percentage(line.vatRate) }));
  return {
    DettaglioLinee: lines.map(({ line, amounts, aliquotaIva }) => ({
      NumeroLinea: String(line.position),
      ...(line.productRef ? { CodiceArticolo: { CodiceTipo: PRODUCT_REF_TYPE, CodiceValore: line.productRef } } : {}),
      Descrizione: line.description,
      Quantita: amounts.Quantita,
      ...(line.unit ? { UnitaMisura: line.unit } : {}),
      PrezzoUnitario: amounts.PrezzoUnitario,
      ...(amounts.ScontoMaggiorazione ? { ScontoMaggiorazione: amounts.ScontoMaggiorazione } : {}),
      PrezzoTotale: amounts.PrezzoTotale,
      AliquotaIVA: aliquotaIva,
      ...(line.natureCode ? { Natura: line.natureCode } : {}),
    })),
    DatiRiepilogo: datiRiepilogoOf(
      invoice.vatBreakdown,
      lines.map(({ line, amounts, aliquotaIva }) => ({ aliquotaIva, natura: line.natureCode, prezzoTotale: amounts.prezzoTotale })),
      invoice.currency,
    ),
  };
}

/**
 * The FatturaPA 1.2.3 document of a submitted invoice (reference §9): one body, unsigned,
 * sent by the seller itself. Elements below the root are unqualified, as the schema declares
 * them. The caller has run the validation rules (`violations.ts`); what they exclude throws.
 */
export function buildFatturaPa(invoice: InvoiceDocument): BuiltInvoiceDocument {
  const vatDigits = italianVatDigits(invoice.seller.vatId);
  if (vatDigits === undefined) throw new RangeError('the seller has no Italian VAT id');
  const codiceDestinatario = invoice.routing.codiceDestinatario;
  if (codiceDestinatario === null) throw new RangeError('an Italian invoice needs routing.codice_destinatario');
  const format = transmissionFormatOf(codiceDestinatario);
  const progressivo = progressivoOf(invoice.transmissionSequence);
  const pec = codiceDestinatario === NO_RECIPIENT_CODE ? invoice.routing.pecAddress : null;
  const datiPagamento = datiPagamentoOf(invoice);

  const document = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    'p:FatturaElettronica': {
      '@_xmlns:p': FATTURAPA_NAMESPACE,
      '@_versione': format,
      FatturaElettronicaHeader: {
        DatiTrasmissione: {
          IdTrasmittente: { IdPaese: 'IT', IdCodice: vatDigits },
          ProgressivoInvio: progressivo,
          FormatoTrasmissione: format,
          CodiceDestinatario: codiceDestinatario,
          ...(pec ? { PECDestinatario: pec.trim() } : {}),
        },
        CedentePrestatore: cedentePrestatoreOf(invoice.seller),
        CessionarioCommittente: cessionarioCommittenteOf(invoice.buyer),
      },
      FatturaElettronicaBody: {
        DatiGenerali: datiGeneraliOf(invoice),
        DatiBeniServizi: datiBeniServiziOf(invoice),
        ...(datiPagamento ? { DatiPagamento: datiPagamento } : {}),
      },
    },
  };
  const xml = new XMLBuilder({ ignoreAttributes: false, format: true, indentBy: '  ' }).build(document) as string;
  const fileName = fatturaPaFileName(vatDigits, progressivo);
  return { xml, fileName, jurisdictionData: { format, file_name: fileName, progressivo } };
}
