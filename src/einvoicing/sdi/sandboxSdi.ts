import { randomInt } from 'node:crypto';
import { isValidItalianVatNumber } from '../../domain/italianVatNumber.js';
import { cadesFault } from '../cades/verifyCades.js';
import type { ChannelNotification, InvoiceChannel, RecipientSimulation, TransmittedFile } from '../invoiceChannel.js';
import { readSdiFile, type SdiFileFacts } from './sdiFile.js';

/** A B2B invoice the recipient does not refuse counts as accepted this many days after delivery (DESIGN). */
export const B2B_ACCEPTANCE_DAYS = 15;

const NO_RECIPIENT_CODE = '0000000';

/** IdentificativoSdI: the SdI numbers the files it receives; the sandbox draws 12 digits. */
const sdiIdentifier = (): string => `${randomInt(100_000, 1_000_000)}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;

/**
 * The SdI's notification for a file, as the sandbox decides it from the file alone (reference
 * italy.md §10): NS 00305 for a buyer whose Italian VAT number fails its check digit; MC for
 * 0000000 without a PEC address (the invoice waits in the buyer's reserved area, still
 * fiscally issued); otherwise RC.
 */
export function sandboxOutcome(file: SdiFileFacts): ChannelNotification {
  const buyer = file.buyerVatId;
  if (buyer?.country === 'IT' && !isValidItalianVatNumber(buyer.code)) {
    return {
      kind: 'rejected',
      errors: [{ code: '00305', message: `1.4.1.1.2 <IdCodice> non valido: ${buyer.code} (the buyer's partita IVA fails its check digit)` }],
    };
  }
  if (file.codiceDestinatario === NO_RECIPIENT_CODE && !file.pecDestinatario) {
    return {
      kind: 'undeliverable',
      errors: [{ code: 'MC', message: "Recapito non disponibile: the invoice is in the recipient's reserved area of the Agenzia delle Entrate and counts as issued" }],
    };
  }
  return { kind: 'delivered', acceptedAfterDays: file.format === 'FPR12' ? B2B_ACCEPTANCE_DAYS : null };
}

/** The SdI's signature codes (NS): 00100 for a certificate that had expired, 00102 for a signature that does not hold. */
const SIGNATURE_ERRORS = {
  certificate_expired: { code: '00100', message: 'Certificato di firma scaduto' },
  signature_invalid: { code: '00102', message: 'La firma elettronica apposta al file non risulta valida' },
} as const;

/**
 * The SdI's check of a file's signature, before it reads the invoice: a signed (`.p7m`) file's
 * CAdES signature must hold at the time it is received, and an invoice to a public
 * administration (FPA12) must be signed. NS with the reason, or null when the file passes.
 */
export async function signatureRejection(file: TransmittedFile, facts: SdiFileFacts, receivedAt: Date): Promise<ChannelNotification | null> {
  if (!file.fileName.endsWith('.p7m')) {
    if (facts.format !== 'FPA12') return null;
    const { code, message } = SIGNATURE_ERRORS.signature_invalid;
    return { kind: 'rejected', errors: [{ code, message: `${message}: an invoice to a public administration (FPA12) must be signed` }] };
  }
  const fault = await cadesFault(file.document, receivedAt);
  if (!fault) return null;
  const { code, message } = SIGNATURE_ERRORS[fault.fault];
  return { kind: 'rejected', errors: [{ code, message: `${message}: ${fault.detail}` }] };
}

const RECIPIENT_ANSWERS: Record<RecipientSimulation, ChannelNotification> = {
  recipient_accepted: { kind: 'recipient_accepted' },
  recipient_refused: { kind: 'recipient_refused', errors: [{ code: 'EC02', message: 'Rifiutata: the public administration refused the invoice (sandbox simulation)' }] },
  deadline_passed: { kind: 'deadline_passed' },
};

/**
 * The sandbox's SdI: it receives every FatturaPA file at once (IdentificativoSdI) and
 * notifies its outcome `delayMs` later: the signature's check first, then the invoice's. A
 * public administration's answer (NE EC01/EC02, or DT when its 15 days pass) comes from
 * POST /v1/invoices/{id}/simulate.
 */
export function sandboxSdi(delayMs: number): InvoiceChannel {
  return {
    name: 'sandbox',
    pollDelayMs: delayMs,
    send: async (file: TransmittedFile) => {
      readSdiFile(file);
      return { outcome: 'received', identifier: sdiIdentifier() };
    },
    // The worker asks `delayMs` after the receipt, or later: the outcome is ready by then.
    nextNotification: async (file, { receivedAt }) => {
      const facts = readSdiFile(file);
      return { notification: (await signatureRejection(file, facts, receivedAt)) ?? sandboxOutcome(facts), more: false };
    },
    simulateRecipient: (file, event) => {
      if (readSdiFile(file).format !== 'FPA12') {
        return { refused: `only an invoice to a public administration (FPA12) gets its recipient's answer through the SdI; a B2B invoice counts as accepted ${B2B_ACCEPTANCE_DAYS} days after delivery` };
      }
      return RECIPIENT_ANSWERS[event];
    },
  };
}
