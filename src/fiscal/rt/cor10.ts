import { Decimal } from 'decimal.js';
import { XMLBuilder } from 'fast-xml-parser';
import { SignedXml } from 'xml-crypto';
import type { RtDayTotals } from '../../domain/rtDayTotals.js';
import type { DeviceKeyPair } from './simulator/deviceCertificate.js';

const NAMESPACE = 'http://ivaservizi.agenziaentrate.gov.it/docs/xsd/corrispettivi/dati/v1.0';
const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

/** What a COR10 file reports (reference italy.md §6). */
export interface Cor10Content {
  /** The device's transmission counter (Trasmissione/Progressivo), from 1. */
  transmissionProgressive: number;
  closedAt: Date;
  /** The fiscal day's start (the previous closure, or the device's activation): PeriodoInattivo's Dal when the day had no documents. */
  openedAt: Date;
  totals: RtDayTotals;
  /** A sandbox file says simulazione="true". */
  simulation: boolean;
}

/** xs:dateTime without milliseconds. */
const dateTime = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The XSD's natura codes are N1 ... N6 without sub-codes: N2.1 is reported as N2. */
const naturaCode = (key: string) => key.replace(/\..*$/, '');

/** The rate as AliquotaIVA writes it: 0.22 -> 22.00. */
const percent = (rate: string) => new Decimal(rate).times(100).toFixed(2);

function riepiloghi(totals: RtDayTotals) {
  // A day without documents still carries one (empty) Riepilogo: DatiRT needs at least one.
  const lines = totals.totals.length ? totals.totals : [{ tax: '0.22', amount: '0.00', taxAmount: '0.00', returns: '0.00' }];
  return lines.map((line) => ({
    ...(line.tax.startsWith('N') ? { Natura: naturaCode(line.tax) } : { IVA: { AliquotaIVA: percent(line.tax), Imposta: line.taxAmount } }),
    Ammontare: line.amount,
    ImportoParziale: new Decimal(line.amount).minus(line.returns).toFixed(2),
    TotaleAmmontareResi: line.returns,
    TotaleAmmontareAnnulli: '0.00',
  }));
}

/**
 * The daily closure's COR10 XML, unsigned. Elements below the root are
 * unqualified (the schema has no elementFormDefault). An RT sends no
 * Dispositivo: its certificate identifies it. A day without documents is
 * reported as an inactive period (reference §1, §8) with zero totals.
 */
export function buildCor10(content: Cor10Content): string {
  const { totals } = content;
  const document = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    'n1:DatiCorrispettivi': {
      '@_xmlns:n1': NAMESPACE,
      '@_versione': 'COR10',
      ...(content.simulation ? { '@_simulazione': 'true' } : {}),
      Trasmissione: { Progressivo: content.transmissionProgressive, Formato: 'COR10' },
      ...(totals.documentCount === 0 ? { PeriodoInattivo: { Dal: dateTime(content.openedAt), Al: dateTime(content.closedAt) } } : {}),
      DataOraRilevazione: dateTime(content.closedAt),
      DatiRT: {
        Riepilogo: riepiloghi(totals),
        Totali: { NumeroDocCommerciali: totals.documentCount, PagatoContanti: totals.paidCash, PagatoElettronico: totals.paidElectronic },
      },
    },
  };
  return new XMLBuilder({ ignoreAttributes: false, suppressBooleanAttributes: false }).build(document) as string;
}

/** Signs a COR10 as the device does: enveloped XML-DSig, RSA-SHA256, C14N, Reference URI="", the certificate in KeyInfo. */
export function signCor10(xml: string, device: DeviceKeyPair): string {
  const signature = new SignedXml({
    privateKey: device.privateKeyPem,
    publicCert: device.certificatePem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: C14N,
  });
  signature.addReference({ xpath: '/*', uri: '', isEmptyUri: true, transforms: [ENVELOPED, C14N], digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256' });
  signature.computeSignature(xml, { prefix: 'ds', location: { reference: '/*', action: 'append' } });
  return signature.getSignedXml();
}
