import type { AppContext } from '../../context.js';
import type { Invoice, Merchant, Prisma } from '../../db/generated/client.js';
import type { Tx } from '../../db/transaction.js';
import { unprocessable } from '../../domain/errors.js';
import { chainHash, documentSha256 } from '../../domain/invoices/chainHash.js';
import { formatInvoiceNumber, yearOfDate } from '../../domain/invoices/invoiceNumber.js';
import { newId } from '../../lib/ids.js';
import { settleCancellation } from '../../einvoicing/cancellationSettlement.js';
import { invoiceDocumentOf } from '../../einvoicing/invoiceContentOf.js';
import { changeInvoiceState } from '../../einvoicing/invoiceStateChange.js';
import { jurisdictionOf } from '../../einvoicing/jurisdictions/index.js';
import type { DocumentSigning } from '../../einvoicing/documentSigning.js';
import type { BuiltInvoiceDocument } from '../../einvoicing/einvoiceFormat.js';
import { certificateForSubmission, type SigningCertificate } from '../fiscalCertificates/submission.js';
import { extendChain, nextInvoiceNumber, takeChainPosition } from './numbering.js';
import { checkInvoice, contentDataOf, localDateOf } from './preparation.js';
import { recordInvoiceStateChanged } from '../events/invoiceEvents.js';

/**
 * Submits a draft (its row locked by the caller) inside the caller's transaction, so that
 * everything below commits together or not at all:
 *
 * 1. checks it again (now with the issue date: the given one, else today in the jurisdiction);
 * 2. takes the next number of its series and year and the next place in the organization's
 *    chain for the jurisdiction (both rows stay locked until commit);
 * 3. builds the document with the jurisdiction's format, signs it with the organization's
 *    fiscal certificate where the jurisdiction signs and one can (422 fiscal_certificate_expired
 *    when its certificates are all expired or revoked, fiscal_certificate_required for a
 *    document that must be signed and cannot be), and stores it unchanged, with its chain hash
 *    over the stored bytes;
 * 4. submitted; then either a transmission job for the worker of its channel (the
 *    organization's for the jurisdiction, else the jurisdiction's default), or, where there is
 *    none (Germany without a configured one), transmitted at once (which also settles a
 *    cancellation this credit note makes).
 */
export async function submitDraft(ctx: AppContext, tx: Tx, organization: Merchant, invoice: Invoice): Promise<Invoice> {
  const jurisdiction = jurisdictionOf(invoice.jurisdiction);
  const at = ctx.clock();
  const today = localDateOf(at, jurisdiction);
  const data = { ...contentDataOf(invoice), issueDate: invoice.issueDate ?? today };
  const { content } = await checkInvoice(tx, organization, jurisdiction, data, { today, submitting: true, invoiceId: invoice.id });
  const channel = (await ctx.invoiceChannels.forSending(invoice, tx))?.channel ?? null;
  const certificate = await certificateForSubmission(tx, ctx.secrets, organization.id, jurisdiction.code, at);

  const number = formatInvoiceNumber(invoice.series, yearOfDate(data.issueDate), await nextInvoiceNumber(tx, organization.id, invoice.series, yearOfDate(data.issueDate)));
  const position = await takeChainPosition(tx, organization.id, jurisdiction.code);
  const built = jurisdiction.format.build(invoiceDocumentOf(content, number, position.sequence));
  const { document, fileName, jurisdictionData } = await storedDocumentOf(built, jurisdiction.signing, certificate, at);
  const hash = chainHash(position.previousChainHash, document);
  await extendChain(tx, organization.id, jurisdiction.code, hash);

  const submitted = await changeInvoiceState(tx, invoice, {
    event: 'submitted',
    at,
    update: {
      issueDate: data.issueDate,
      invoiceNumber: number,
      transmissionSequence: position.sequence,
      document,
      documentFileName: fileName,
      documentSha256: documentSha256(document),
      jurisdictionData: jurisdictionData as Prisma.InputJsonValue,
      chainHash: hash,
      transmissionStatus: 'pending',
      submittedAt: at,
    },
    details: { invoice_number: number, chain_hash: hash },
  }, recordInvoiceStateChanged(ctx.publicBaseUrl));
  if (channel) {
    await tx.invoiceTransmissionJob.create({ data: { id: newId('itx'), invoiceId: invoice.id, status: 'pending' } });
    return submitted;
  }
  const transmitted = await changeInvoiceState(tx, submitted, {
    event: 'received_by_authority',
    at,
    update: { transmissionStatus: 'transmitted', transmittedAt: at },
  }, recordInvoiceStateChanged(ctx.publicBaseUrl));
  await settleCancellation(tx, transmitted, 'confirmed', at, recordInvoiceStateChanged(ctx.publicBaseUrl));
  return transmitted;
}

/**
 * The document as it is stored and sent: the built XML, or, where the jurisdiction signs and an
 * active certificate with a key can, the signed file; `jurisdiction_data.file_name` names it.
 * 422 fiscal_certificate_required when the document must be signed and nothing can sign it.
 */
async function storedDocumentOf(
  built: BuiltInvoiceDocument,
  signing: DocumentSigning | null,
  certificate: SigningCertificate | null,
  at: Date,
): Promise<{ document: Buffer<ArrayBuffer>; fileName: string; jurisdictionData: Record<string, unknown> }> {
  const requiredBy = signing?.requiredBy(built) ?? null;
  if (requiredBy && !certificate) {
    throw unprocessable(
      'fiscal_certificate_required',
      'This document must be signed: upload an active fiscal certificate of the jurisdiction with its private key',
      { field: requiredBy },
    );
  }
  if (!signing || !certificate) {
    return { document: Buffer.from(built.xml, 'utf8'), fileName: built.fileName, jurisdictionData: { ...built.jurisdictionData, file_name: built.fileName } };
  }
  const signed = await signing.sign(built, certificate, at);
  return {
    document: signed.document,
    fileName: signed.fileName,
    jurisdictionData: { ...built.jurisdictionData, file_name: signed.fileName, signature: { ...signed.signature, fiscal_certificate_id: certificate.certificateId } },
  };
}
