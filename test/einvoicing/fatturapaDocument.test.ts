// Issue 17, point 4: the FatturaPA 1.2.3 document of an Italian invoice validates against the
// official XSD (read from ../shared, never copied) for every kind of recipient, document type,
// rate and payment, and its amounts add up the way the SdI checks them.
import { describe, expect, it } from 'vitest';
import { fatturaPaFormat } from '../../src/einvoicing/fatturapa/index.js';
import type { InvoiceDocument } from '../../src/einvoicing/invoiceDocument.js';
import { consumer, dutchCompany, germanCompany, invoice, line, publicAdministration, seller } from './fatturapaFixtures.js';
import { body, brokenSums, header, readFattura } from './fatturapaRead.js';
import { fatturaPaSchemaErrors } from './fatturapaXsd.js';

/** Builds a document that has no violations, and checks it against the XSD and its own sums. */
async function build(document: InvoiceDocument) {
  expect(fatturaPaFormat.violations(document)).toEqual([]);
  const built = fatturaPaFormat.build(document);
  expect(await fatturaPaSchemaErrors(built.xml)).toEqual([]);
  expect(brokenSums(built.xml)).toEqual([]);
  return built;
}

describe('FatturaPA document', () => {
  it('the schema check is not vacuous: it rejects a document missing a required element or with a bad pattern', async () => {
    const { xml } = fatturaPaFormat.build(invoice());
    expect(await fatturaPaSchemaErrors(xml.replace('<RegimeFiscale>RF01</RegimeFiscale>', ''))).not.toEqual([]);
    expect(await fatturaPaSchemaErrors(xml.replace('<CAP>20121</CAP>', '<CAP>2012</CAP>'))).not.toEqual([]);
    // Several documents in one run: a broken one among valid ones is found and named.
    const errors = await fatturaPaSchemaErrors(xml, xml.replace('<Divisa>EUR</Divisa>', '<Divisa>euro</Divisa>'), xml);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toContain('fattura-1.xml');
    expect(errors.join('\n')).not.toContain('fattura-0.xml');
  });

  it('B2B to a 7-character recipient code: FPR12, transmitted by the seller, file name from the progressivo', async () => {
    const built = await build(invoice({ transmissionSequence: 46655 }));
    expect(built.xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<p:FatturaElettronica xmlns:p="http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fatture/v1.2" versione="FPR12">')).toBe(true);
    expect(built.fileName).toBe('IT01234567890_00ZZZ.xml');
    expect(built.jurisdictionData).toEqual({ format: 'FPR12', file_name: 'IT01234567890_00ZZZ.xml', progressivo: '00ZZZ' });
    const h = header(built.xml);
    expect(h.DatiTrasmissione).toEqual({
      IdTrasmittente: { IdPaese: 'IT', IdCodice: '01234567890' },
      ProgressivoInvio: '00ZZZ',
      FormatoTrasmissione: 'FPR12',
      CodiceDestinatario: 'ABC1234',
    });
    expect(h.CedentePrestatore.DatiAnagrafici).toEqual({
      IdFiscaleIVA: { IdPaese: 'IT', IdCodice: '01234567890' },
      CodiceFiscale: '01234567890',
      Anagrafica: { Denominazione: 'Bottega Rossi S.r.l.' },
      RegimeFiscale: 'RF01',
    });
    expect(h.CedentePrestatore.Sede).toEqual({ Indirizzo: 'Via Roma 1', CAP: '20121', Comune: 'Milano', Provincia: 'MI', Nazione: 'IT' });
    expect(h.CessionarioCommittente).toEqual({
      DatiAnagrafici: { IdFiscaleIVA: { IdPaese: 'IT', IdCodice: '09876543210' }, Anagrafica: { Denominazione: 'Cliente Bianchi S.p.A.' } },
      Sede: { Indirizzo: 'Corso Venezia 10, Scala B', CAP: '10121', Comune: 'Torino', Provincia: 'TO', Nazione: 'IT' },
    });
    expect(body(built.xml).DatiGenerali.DatiGeneraliDocumento).toEqual({
      TipoDocumento: 'TD01',
      Divisa: 'EUR',
      Data: '2025-06-30',
      Numero: 'FT/2025/1',
      ImportoTotaleDocumento: '122.00',
    });
    expect(body(built.xml).DatiBeniServizi).toEqual({
      DettaglioLinee: [{ NumeroLinea: '1', Descrizione: 'Articolo 1', Quantita: '1.00', PrezzoUnitario: '100.00', PrezzoTotale: '100.00', AliquotaIVA: '22.00' }],
      DatiRiepilogo: [{ AliquotaIVA: '22.00', ImponibileImporto: '100.00', Imposta: '22.00', EsigibilitaIVA: 'I' }],
    });
  });

  it('to a public administration (6-character office code): FPA12', async () => {
    const built = await build(invoice({ buyer: publicAdministration(), routing: { codiceDestinatario: 'UF7XQZ', pecAddress: null, buyerReference: null } }));
    expect(readFattura(built.xml)['@_versione']).toBe('FPA12');
    expect(header(built.xml).DatiTrasmissione.FormatoTrasmissione).toBe('FPA12');
    expect(header(built.xml).CessionarioCommittente.DatiAnagrafici).toEqual({ CodiceFiscale: '80034840167', Anagrafica: { Denominazione: 'Comune di Bergamo' } });
    expect(built.jurisdictionData.format).toBe('FPA12');
  });

  it('to a consumer with a codice fiscale only: 0000000 with the PEC address, and without one', async () => {
    const withPec = await build(invoice({ buyer: consumer(), routing: { codiceDestinatario: '0000000', pecAddress: 'mario.verdi@pec.it', buyerReference: null } }));
    expect(header(withPec.xml).DatiTrasmissione).toMatchObject({ FormatoTrasmissione: 'FPR12', CodiceDestinatario: '0000000', PECDestinatario: 'mario.verdi@pec.it' });
    expect(header(withPec.xml).CessionarioCommittente.DatiAnagrafici).toEqual({ CodiceFiscale: 'VRDMRA80A01H501U', Anagrafica: { Denominazione: 'Mario Verdi' } });

    const withoutPec = await build(invoice({ buyer: consumer(), routing: { codiceDestinatario: '0000000', pecAddress: null, buyerReference: null } }));
    expect(header(withoutPec.xml).DatiTrasmissione.PECDestinatario).toBeUndefined();
  });

  it('writes a PEC address only beside 0000000: the SdI refuses it next to a recipient code', async () => {
    const built = await build(invoice({ routing: { codiceDestinatario: 'ABC1234', pecAddress: 'fatture@pec.bianchi.it', buyerReference: null } }));
    expect(header(built.xml).DatiTrasmissione.PECDestinatario).toBeUndefined();
  });

  it('to a foreign EU business: its VAT id and country, no provincia, a five-digit postal code kept, another one as 00000', async () => {
    const services = [line(1, { vatRate: '0', natureCode: 'N2.1', description: 'Consulenza (art. 7-ter)' })];
    const german = await build(invoice({ buyer: germanCompany(), lines: services, routing: { codiceDestinatario: 'XXXXXXX', pecAddress: null, buyerReference: null } }));
    expect(header(german.xml).CessionarioCommittente).toEqual({
      DatiAnagrafici: { IdFiscaleIVA: { IdPaese: 'DE', IdCodice: '123456789' }, Anagrafica: { Denominazione: 'Müller Handels GmbH' } },
      Sede: { Indirizzo: 'Friedrichstraße 100', CAP: '10117', Comune: 'Berlin', Nazione: 'DE' },
    });
    expect(body(german.xml).DatiBeniServizi.DatiRiepilogo).toEqual([
      { AliquotaIVA: '0.00', Natura: 'N2.1', ImponibileImporto: '100.00', Imposta: '0.00', EsigibilitaIVA: 'I', RiferimentoNormativo: 'Operazione non soggetta, artt. da 7 a 7-septies DPR 633/72' },
    ]);

    const goods = [line(1, { vatRate: '0', natureCode: 'N3.2' })];
    const dutch = await build(invoice({ buyer: dutchCompany(), lines: goods, routing: { codiceDestinatario: 'XXXXXXX', pecAddress: null, buyerReference: null } }));
    expect(header(dutch.xml).CessionarioCommittente.Sede).toEqual({ Indirizzo: 'Damrak 1', CAP: '00000', Comune: 'Amsterdam', Nazione: 'NL' });
    expect(header(dutch.xml).CessionarioCommittente.DatiAnagrafici.IdFiscaleIVA).toEqual({ IdPaese: 'NL', IdCodice: '123456789B01' });
  });

  it('to a foreign consumer without identifiers: IdFiscaleIVA of its country with 99999999999', async () => {
    const buyer = { ...germanCompany(), legalName: 'Hans Schmidt', vatId: null };
    const built = await build(invoice({ buyer, routing: { codiceDestinatario: 'XXXXXXX', pecAddress: null, buyerReference: null } }));
    expect(header(built.xml).CessionarioCommittente.DatiAnagrafici.IdFiscaleIVA).toEqual({ IdPaese: 'DE', IdCodice: '99999999999' });
  });

  it('multiple rates with discounts: a discount is written per unit, and every sum holds exactly', async () => {
    const lines = [
      line(1, { quantity: '4', unitPriceNet: 2500, discount: 1000, unit: 'pz', productRef: 'SKU-1' }),
      line(2, { quantity: '3', unitPriceNet: 999, discount: 100, vatRate: '0.1' }),
      line(3, { quantity: '1.5', unitPriceNet: 333, vatRate: '0.04' }),
      line(4, { quantity: '2.125', unitPriceNet: 1999, discount: 7, vatRate: '0.05' }),
      line(5, { quantity: '10', unitPriceNet: 120, discount: 5 }),
    ];
    const built = await build(invoice({ lines }));
    const detail = body(built.xml).DatiBeniServizi.DettaglioLinee;
    expect(detail[0]).toEqual({
      NumeroLinea: '1',
      CodiceArticolo: { CodiceTipo: 'INTERNO', CodiceValore: 'SKU-1' },
      Descrizione: 'Articolo 1',
      Quantita: '4.00',
      UnitaMisura: 'pz',
      PrezzoUnitario: '25.00',
      ScontoMaggiorazione: [{ Tipo: 'SC', Importo: '2.50' }],
      PrezzoTotale: '90.00',
      AliquotaIVA: '22.00',
    });
    // 1.00 off three units cannot be split exactly: 0.33333333 per unit, and the summary's
    // Arrotondamento carries the remaining 0.00000001 to the line net of 28.97.
    expect(detail[1]).toMatchObject({ Quantita: '3.00', PrezzoUnitario: '9.99', ScontoMaggiorazione: [{ Tipo: 'SC', Importo: '0.33333333' }], PrezzoTotale: '28.97000001' });
    // 1.5 x 3.33 = 4.995: PrezzoTotale is the product, the line net rounds it to 5.00.
    expect(detail[2]).toMatchObject({ Quantita: '1.50', PrezzoTotale: '4.995' });
    // Quantita has 3 decimals, so the per-unit discount gets 5: sconto x Quantita stays within 8.
    expect(detail[3]).toMatchObject({ Quantita: '2.125', ScontoMaggiorazione: [{ Tipo: 'SC', Importo: '0.03294' }], PrezzoTotale: '42.4087525' });
    const riepilogo = body(built.xml).DatiBeniServizi.DatiRiepilogo;
    expect(riepilogo.map((r: { AliquotaIVA: string }) => r.AliquotaIVA)).toEqual(['22.00', '10.00', '4.00', '5.00']);
    expect(riepilogo[1]).toMatchObject({ ImponibileImporto: '28.97', Arrotondamento: '-0.00000001', Imposta: '2.90' });
    expect(riepilogo[2]).toMatchObject({ ImponibileImporto: '5.00', Arrotondamento: '0.005', Imposta: '0.20' });
    // Each PrezzoTotale is within one cent of its line's net amount.
    lines.forEach((l, i) => expect(Math.abs(Number(detail[i].PrezzoTotale) * 100 - l.netAmount)).toBeLessThan(1));
  });

  it('natura rows N2.1, N3.x and N4 carry their legal reference and EsigibilitaIVA I', async () => {
    const lines = [
      line(1),
      line(2, { vatRate: '0', natureCode: 'N2.1', unitPriceNet: 5000 }),
      line(3, { vatRate: '0', natureCode: 'N3.1', unitPriceNet: 7000 }),
      line(4, { vatRate: '0', natureCode: 'N3.5', unitPriceNet: 8000 }),
      line(5, { vatRate: '0', natureCode: 'N4', unitPriceNet: 3000 }),
      line(6, { vatRate: '0', natureCode: 'N4', unitPriceNet: 1000 }),
      line(7, { vatRate: '0', natureCode: 'N6.3', unitPriceNet: 2000 }),
    ];
    const built = await build(invoice({ lines }));
    const riepilogo = body(built.xml).DatiBeniServizi.DatiRiepilogo as Record<string, string>[];
    expect(riepilogo.map((r) => [r.Natura ?? null, r.ImponibileImporto, r.Imposta, r.EsigibilitaIVA])).toEqual([
      [null, '100.00', '22.00', 'I'],
      ['N2.1', '50.00', '0.00', 'I'],
      ['N3.1', '70.00', '0.00', 'I'],
      ['N3.5', '80.00', '0.00', 'I'],
      ['N4', '40.00', '0.00', 'I'],
      ['N6.3', '20.00', '0.00', 'I'],
    ]);
    expect(riepilogo[0].RiferimentoNormativo).toBeUndefined();
    for (const row of riepilogo.slice(1)) expect(row.RiferimentoNormativo).toMatch(/\S/);
    expect(body(built.xml).DatiBeniServizi.DettaglioLinee[4]).toMatchObject({ AliquotaIVA: '0.00', Natura: 'N4' });
  });

  it('a credit note is TD04 and references the original in DatiFattureCollegate', async () => {
    const built = await build(
      invoice({
        documentType: 'credit_note',
        invoiceNumber: 'NC/2025/3',
        references: { originalInvoice: { invoiceNumber: 'FT/2025/1', issueDate: '2025-06-30' }, purchaseOrderRef: null, contractRef: null, deliveryDate: null },
      }),
    );
    const generali = body(built.xml).DatiGenerali;
    expect(generali.DatiGeneraliDocumento).toMatchObject({ TipoDocumento: 'TD04', Numero: 'NC/2025/3', ImportoTotaleDocumento: '122.00' });
    expect(generali.DatiFattureCollegate).toEqual({ IdDocumento: 'FT/2025/1', Data: '2025-06-30' });
  });

  it('a debit note is TD05 and references the original', async () => {
    const built = await build(
      invoice({
        documentType: 'debit_note',
        references: { originalInvoice: { invoiceNumber: 'FT/2025/1', issueDate: '2025-06-30' }, purchaseOrderRef: null, contractRef: null, deliveryDate: null },
      }),
    );
    expect(body(built.xml).DatiGenerali.DatiGeneraliDocumento.TipoDocumento).toBe('TD05');
    expect(body(built.xml).DatiGenerali.DatiFattureCollegate).toEqual({ IdDocumento: 'FT/2025/1', Data: '2025-06-30' });
  });

  it.each([
    ['simplified_invoice', 'TD01'],
    ['deferred_invoice', 'TD24'],
  ] as const)('%s is %s', async (documentType, tipo) => {
    const built = await build(invoice({ documentType }));
    expect(body(built.xml).DatiGenerali.DatiGeneraliDocumento.TipoDocumento).toBe(tipo);
    expect(body(built.xml).DatiGenerali.DatiFattureCollegate).toBeUndefined();
  });

  it('a self_invoice is TD27, the seller being its own buyer', async () => {
    const built = await build(invoice({ documentType: 'self_invoice', buyer: seller(), notes: ['Autofattura per omaggi senza rivalsa'] }));
    expect(body(built.xml).DatiGenerali.DatiGeneraliDocumento.TipoDocumento).toBe('TD27');
    expect(header(built.xml).CessionarioCommittente.DatiAnagrafici.IdFiscaleIVA).toEqual({ IdPaese: 'IT', IdCodice: '01234567890' });
  });

  it('purchase order and contract references become DatiOrdineAcquisto and DatiContratto', async () => {
    const built = await build(invoice({ references: { originalInvoice: null, purchaseOrderRef: 'PO-2025-0042', contractRef: 'CTR/7', deliveryDate: '2025-06-28' } }));
    expect(body(built.xml).DatiGenerali).toMatchObject({ DatiOrdineAcquisto: { IdDocumento: 'PO-2025-0042' }, DatiContratto: { IdDocumento: 'CTR/7' } });
  });

  it('a credit transfer with IBAN: TP02, MP05, the total due on the due date', async () => {
    const built = await build(invoice({ paymentTerms: { method: null, dueDate: '2025-07-30', iban: 'IT60 X054 2811 1010 0000 0123 456', installments: [] } }));
    expect(body(built.xml).DatiPagamento).toEqual([
      {
        CondizioniPagamento: 'TP02',
        DettaglioPagamento: [{ ModalitaPagamento: 'MP05', DataScadenzaPagamento: '2025-07-30', ImportoPagamento: '122.00', IBAN: 'IT60X0542811101000000123456' }],
      },
    ]);
  });

  it('installments: TP01, one DettaglioPagamento each', async () => {
    const built = await build(
      invoice({
        paymentTerms: {
          method: 'SEPA Direct Debit',
          dueDate: null,
          iban: 'IT60X0542811101000000123456',
          installments: [
            { dueDate: '2025-07-31', amount: 6100 },
            { dueDate: '2025-08-31', amount: 6100 },
          ],
        },
      }),
    );
    expect(body(built.xml).DatiPagamento).toEqual([
      {
        CondizioniPagamento: 'TP01',
        DettaglioPagamento: [
          { ModalitaPagamento: 'MP19', DataScadenzaPagamento: '2025-07-31', ImportoPagamento: '61.00', IBAN: 'IT60X0542811101000000123456' },
          { ModalitaPagamento: 'MP19', DataScadenzaPagamento: '2025-08-31', ImportoPagamento: '61.00', IBAN: 'IT60X0542811101000000123456' },
        ],
      },
    ]);
  });

  it('notes become Causale in pieces of 200 characters; text is escaped and Latin-1 kept', async () => {
    const long = 'àèìòù'.repeat(50);
    const description = 'Caffè & brioche <"speciali"> dell\'artigiano';
    const built = await build(invoice({ notes: ['Grazie & a presto', long], lines: [line(1, { description })] }));
    expect(built.xml).toContain('Caffè &amp; brioche &lt;&quot;speciali&quot;&gt;');
    expect(body(built.xml).DatiGenerali.DatiGeneraliDocumento.Causale).toEqual(['Grazie & a presto', long.slice(0, 200), long.slice(200)]);
    expect(body(built.xml).DatiBeniServizi.DettaglioLinee[0].Descrizione).toBe(description);
  });

  it('a negative quantity is written as a positive Quantita with the unit price negated', async () => {
    const lines = [line(1, { quantity: '5' }), line(2, { quantity: '-2', unitPriceNet: 1000, discount: 100, description: 'Reso' })];
    const built = await build(invoice({ lines }));
    expect(body(built.xml).DatiBeniServizi.DettaglioLinee[1]).toMatchObject({ Quantita: '2.00', PrezzoUnitario: '-10.00', ScontoMaggiorazione: [{ Tipo: 'SC', Importo: '0.50' }], PrezzoTotale: '-21.00' });
  });

  it('a surcharge (negative discount) is MG', async () => {
    const built = await build(invoice({ lines: [line(1, { quantity: '2', unitPriceNet: 1000, discount: -300 })] }));
    expect(body(built.xml).DatiBeniServizi.DettaglioLinee[0]).toMatchObject({ ScontoMaggiorazione: [{ Tipo: 'MG', Importo: '1.50' }], PrezzoTotale: '23.00' });
  });

  it('a currency without minor units still writes two decimals', async () => {
    const built = await build(invoice({ currency: 'JPY', lines: [line(1, { quantity: '3', unitPriceNet: 1500 })] }));
    expect(body(built.xml).DatiBeniServizi.DettaglioLinee[0]).toMatchObject({ PrezzoUnitario: '1500.00', PrezzoTotale: '4500.00' });
    expect(body(built.xml).DatiGenerali.DatiGeneraliDocumento).toMatchObject({ Divisa: 'JPY', ImportoTotaleDocumento: '5490.00' });
  });
});
