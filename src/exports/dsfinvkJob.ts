import type { Writable } from 'node:stream';
import type { ExportJob, Operation, RegisterSession } from '../db/generated/client.js';
import type { Prisma } from '../db/database.js';
import { registersCoveredBy, ZIP_ARCHIVE, type ExportFormat } from './exportFormat.js';
import type { KassenSichVFiscalRecord } from '../fiscal/kassensichv/fiscalInformation.js';
import type { AddressValue } from '../db/records/address.js';
import { discountsOf, lineItemsOf, paymentsOf } from '../db/records/operation.js';
import { buildDsfinvkExport } from './dsfinvk/buildDsfinvkExport.js';
import { DsfinvkDataError, type DsfinvkClosingSource, type DsfinvkMasterData, type DsfinvkOperation } from './dsfinvk/model.js';
import { ExportBuildError, type ExportBuilder } from './exportWorker.js';
import { localDateIn } from '../domain/localTime.js';

const PAGE_SIZE = 500;
const SOFTWARE = { brand: 'Fiscalization Service', model: 'Software TSE register', software: 'fiscalization-service', softwareVersion: '1.1.0' };

const street = (address: AddressValue): string => [address.line1, address.line2].filter(Boolean).join(', ');

function toExportOperation(operation: Operation, related: DsfinvkOperation['relatedOperation']): DsfinvkOperation {
  const fiscal = operation.fiscalInformation as unknown as KassenSichVFiscalRecord | null;
  const details = (operation.sessionDetails ?? null) as Record<string, string | null> | null;
  const decimal = (value: { toFixed(): string } | null) => (value === null ? '0' : value.toFixed());
  return {
    id: operation.id,
    type: operation.type as DsfinvkOperation['type'],
    status: operation.status as DsfinvkOperation['status'],
    sequenceNumber: operation.sequenceNumber ?? 0,
    currency: operation.currency,
    createdAt: operation.createdAt,
    completedAt: operation.completedAt,
    voidedAt: operation.voidedAt,
    relatedOperation: related,
    externalRelatedOperation: operation.externalRelatedOperation
      ? {
          description: (operation.externalRelatedOperation as { description: string }).description,
          externalOperationId: (operation.externalRelatedOperation as { external_operation_id: string }).external_operation_id,
        }
      : null,
    lineItems: lineItemsOf(operation).map((line) => ({
      id: line.id,
      type: line.type,
      title: line.title,
      quantity: line.quantity,
      unitPrice: line.unit_price,
      totalAmount: line.total_amount,
      skuIdentifier: line.sku_identifier,
      taxes: line.taxes.map((tax) => ({ rate: tax.rate, taxAmount: tax.tax_amount })),
      giftCardId: line.gift_card_id,
    })),
    cartLevelDiscounts: discountsOf(operation).map((discount) => ({ ...discount })),
    tipAmount: decimal(operation.tipAmount),
    totalAmount: decimal(operation.totalAmount),
    pretaxAmount: decimal(operation.pretaxAmount),
    taxAmount: decimal(operation.taxAmount),
    payments: paymentsOf(operation).map((payment) => ({
      method: payment.method,
      amount: payment.amount,
      currency: payment.currency,
      giftCardId: payment.gift_card_id,
    })),
    session: details
      ? {
          openingAmount: details.opening_amount ?? undefined,
          amount: details.amount ?? undefined,
          countedClosingAmount: details.counted_closing_amount ?? undefined,
          expectedClosingAmount: details.expected_closing_amount ?? undefined,
          closingCashcountDiff: details.closing_cashcount_diff ?? undefined,
          closingAdjustmentAmount: details.closing_adjustment_amount ?? null,
        }
      : null,
    tse: fiscal
      ? {
          transactionNumber: fiscal.end_event.transaction_counter,
          startSignatureCounter: fiscal.start_signature_counter,
          finishSignatureCounter: fiscal.end_event.signature_counter,
          startTime: fiscal.start_event.signed_at,
          endTime: fiscal.end_event.signed_at,
          processType: fiscal.end_event.process_type,
          processData: fiscal.end_event.process_data,
          signature: fiscal.end_event.signature,
        }
      : null,
  };
}

/** The session's operations in sequence order, a page at a time (memory stays bounded). */
async function* sessionOperations(db: Prisma, session: RegisterSession): AsyncIterable<DsfinvkOperation> {
  let after = -1;
  for (;;) {
    const page = await db.operation.findMany({
      where: { sessionId: session.id, status: { in: ['completed', 'voided'] }, sequenceNumber: { gt: after } },
      orderBy: { sequenceNumber: 'asc' },
      take: PAGE_SIZE,
    });
    for (const operation of page) {
      let related: DsfinvkOperation['relatedOperation'] = null;
      if (operation.relatedOperationId) {
        const original = await db.operation.findUnique({ where: { id: operation.relatedOperationId } });
        const originalSession = original?.sessionId ? await db.registerSession.findUnique({ where: { id: original.sessionId } }) : null;
        related = {
          operationId: operation.relatedOperationId,
          sequenceNumber: original?.sequenceNumber ?? null,
          closingNumber: originalSession?.closingNumber ?? null,
          registerId: original?.registerId ?? null,
          createdAt: original?.createdAt ?? null,
          closedAt: originalSession?.closedAt ?? null,
        };
      }
      yield toExportOperation(operation, related);
    }
    if (page.length < PAGE_SIZE) return;
    after = page[page.length - 1].sequenceNumber!;
  }
}

/**
 * DSFinV-K for the job's registers: every register session in the range is
 * one cash point closing; a session still open makes the job fail with its id.
 */
export function createDsfinvkBuilder(db: Prisma): ExportBuilder {
  return async (job: ExportJob, output: Writable) => {
    const merchant = await db.merchant.findUniqueOrThrow({ where: { id: job.merchantId } });
    const registers = await db.register.findMany({
      where: registersCoveredBy(job, dsfinvkFormat.regime),
      include: { location: true },
      orderBy: { createdAt: 'asc' },
    });
    const deviceIds = registers.flatMap((register) => (register.deviceId ? [register.deviceId] : []));
    const tseById = new Map((await db.tseDevice.findMany({ where: { id: { in: deviceIds } } })).map((tse) => [tse.id, tse]));
    const sessions = await db.registerSession.findMany({
      where: {
        registerId: { in: registers.map((register) => register.id) },
        openedAt: { lte: job.toTime },
        OR: [{ closedAt: null }, { closedAt: { gte: job.fromTime } }],
      },
      orderBy: [{ registerId: 'asc' }, { openedAt: 'asc' }],
    });
    const unbuilt = sessions.filter((session) => session.status !== 'closed').map((session) => session.id);
    if (unbuilt.length) {
      throw new ExportBuildError(
        'The range holds register sessions that are not closed yet: close each with POST /v1/operations ' +
          '{"type": "session_cash_count", ...} and then {"type": "session_close", ...} on its register, then request the export again',
        { unbuilt_session_ids: unbuilt },
      );
    }
    const identities = merchant.fiscalIdentities as Record<string, string>[];
    const deu = identities.find((identity) => identity.country_code === 'DEU');
    const companyAddress = merchant.address as AddressValue;
    const registerById = new Map(registers.map((register) => [register.id, register]));

    async function* closings(): AsyncIterable<DsfinvkClosingSource> {
      for (const session of sessions) {
        const register = registerById.get(session.registerId)!;
        const tse = register.deviceId ? tseById.get(register.deviceId) : undefined;
        const address = register.location.address as AddressValue;
        const master: DsfinvkMasterData = {
          closingNumber: session.closingNumber!,
          closedAt: session.closedAt!,
          openedAt: session.openedAt,
          businessDay: localDateIn(session.closedAt!, register.location.timezone),
          timezone: register.location.timezone,
          register: { id: register.id, name: register.name, clientId: register.clientId ?? register.id, ...SOFTWARE, baseCurrency: 'EUR' },
          location: { name: register.location.name, street: street(address), postalCode: address.postal_code, city: address.city, countryCode: address.country_code },
          company: {
            legalName: merchant.legalName,
            street: street(companyAddress),
            postalCode: companyAddress.postal_code,
            city: companyAddress.city,
            countryCode: companyAddress.country_code,
            taxNumber: deu?.tax_number ?? null,
            vatId: deu?.vat_id ?? null,
          },
          tse: tse
            ? {
                id: 1,
                serialNumber: tse.serialNumber,
                signatureAlgorithm: tse.algorithm,
                timeFormat: 'unixTime',
                publicKey: tse.publicKey,
                processDataEncoding: 'UTF-8',
              }
            : null,
          openingAmount: session.openingAmount.toFixed(),
        };
        yield { master, operations: () => sessionOperations(db, session) };
      }
    }

    try {
      await buildDsfinvkExport(closings(), output, {
        supplier: { name: merchant.legalName, location: `${companyAddress.city}, ${companyAddress.country_code}`, comment: `DSFinV-K export ${job.id}` },
      });
    } catch (error) {
      // Data the format cannot hold is the merchant's to see on the job, not a reason to retry.
      if (error instanceof DsfinvkDataError) throw new ExportBuildError(error.message, error.details);
      throw error;
    }
  };
}

/** DSFinV-K (Germany): one ZIP of 20 CSV tables over the job's KassenSichV registers. */
export const dsfinvkFormat: ExportFormat = { title: 'DSFinV-K', regime: 'KassenSichV', archive: ZIP_ARCHIVE, builder: ({ db }) => createDsfinvkBuilder(db) };
