import type { Element } from '@xmldom/xmldom';
import { childElement, childText, documentElementOf, elementChildren } from './xmlElements.js';

/**
 * The SdI's notifications to the transmitter (reference italy.md §10): RC delivered, NS rejected,
 * MC not delivered, NE the public administration's outcome, DT its term passed, AT transmitted
 * without delivery (public administrations only).
 */
export const SDI_NOTIFICATION_TYPES = ['RC', 'NS', 'MC', 'NE', 'DT', 'AT'] as const;
export type SdiNotificationType = (typeof SDI_NOTIFICATION_TYPES)[number];

/** An error a notification of rejection lists (ListaErrori/Errore). */
export interface SdiError {
  code: string;
  description: string;
}

interface NotificationFacts {
  /** IdentificativoSdI of the invoice file the notification is about. */
  identifier: string;
  /** NomeFile: the name the invoice file was sent under. */
  invoiceFileName: string;
}

/** A notification file as read (MessaggiTypes_v1.1.xsd for invoices to public administrations, its B2B counterparts otherwise). */
export type SdiNotification = NotificationFacts &
  (
    | { type: 'RC'; deliveredAt: Date }
    | { type: 'NS'; errors: SdiError[] }
    | { type: 'MC'; description: string | null }
    | { type: 'NE'; outcome: 'EC01' | 'EC02'; description: string | null }
    | { type: 'DT'; description: string | null }
    | { type: 'AT' }
  );

/**
 * The root elements a notification of each type may have: MessaggiTypes' for invoices to public
 * administrations, and the B2B receipts the same SDICoop operations carry (Istruzioni SDICoop
 * Trasmissione §1.4.2-1.4.3: RicevutaScarto with NS, RicevutaImpossibilitaRecapito with MC).
 */
const ROOT_ELEMENTS: Record<SdiNotificationType, readonly string[]> = {
  RC: ['RicevutaConsegna'],
  NS: ['NotificaScarto', 'RicevutaScarto'],
  MC: ['NotificaMancataConsegna', 'RicevutaImpossibilitaRecapito'],
  NE: ['NotificaEsito'],
  DT: ['NotificaDecorrenzaTermini'],
  AT: ['AttestazioneTrasmissioneFattura'],
};

const IDENTIFIER = /^\d{1,12}$/;

function required(element: Element, localName: string): string {
  const text = childText(element, localName);
  if (text === null) throw new Error(`<${element.localName}> has no <${localName}>`);
  return text;
}

function errorsOf(root: Element): SdiError[] {
  const list = childElement(root, 'ListaErrori');
  const errors = list ? elementChildren(list).filter((child) => child.localName === 'Errore') : [];
  if (errors.length === 0) throw new Error(`<${root.localName}> lists no Errore`);
  return errors.map((error) => ({ code: required(error, 'Codice'), description: childText(error, 'Descrizione') ?? '' }));
}

function esitoOf(root: Element): { outcome: 'EC01' | 'EC02'; description: string | null } {
  const esito = childElement(root, 'EsitoCommittente');
  if (!esito) throw new Error('<NotificaEsito> has no <EsitoCommittente>');
  const outcome = required(esito, 'Esito');
  if (outcome !== 'EC01' && outcome !== 'EC02') throw new Error(`<EsitoCommittente> has Esito ${outcome}, not EC01 or EC02`);
  return { outcome, description: childText(esito, 'Descrizione') };
}

/** Reads a notification file of the type its SOAP operation says; throws, saying why, when it is not one. */
export function readNotificationFile(type: SdiNotificationType, xml: Buffer): SdiNotification {
  const root = documentElementOf(xml.toString('utf8'));
  if (!ROOT_ELEMENTS[type].includes(root.localName ?? '')) {
    throw new Error(`a ${type} notification must be ${ROOT_ELEMENTS[type].join(' or ')}, not ${root.localName}`);
  }
  const identifier = required(root, 'IdentificativoSdI');
  if (!IDENTIFIER.test(identifier)) throw new Error(`IdentificativoSdI ${identifier} is not an integer of at most 12 digits`);
  const facts: NotificationFacts = { identifier, invoiceFileName: required(root, 'NomeFile') };
  switch (type) {
    case 'RC': {
      const deliveredAt = new Date(required(root, 'DataOraConsegna'));
      if (Number.isNaN(deliveredAt.getTime())) throw new Error('DataOraConsegna is not a date and time');
      return { ...facts, type, deliveredAt };
    }
    case 'NS':
      return { ...facts, type, errors: errorsOf(root) };
    case 'MC':
    case 'DT':
      return { ...facts, type, description: childText(root, 'Descrizione') };
    case 'NE':
      return { ...facts, type, ...esitoOf(root) };
    case 'AT':
      return { ...facts, type };
  }
}
