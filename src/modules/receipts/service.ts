import type { Merchant, Operation, Receipt } from '../../db/generated/client.js';
import type { SqlClient } from '../../db/sql.js';
import type { AppContext } from '../../context.js';
import { notFound } from '../../domain/errors.js';
import { newId, randomBase62 } from '../../lib/ids.js';
import type { Tx } from '../../db/transaction.js';
import { buildReceiptSnapshot, type ReceiptPlace, type ReceiptSnapshot } from './snapshot.js';

/** The location and register a receipt names, loaded for an operation that did not bring them. */
export async function receiptPlaceOf(tx: Tx, operation: Operation): Promise<ReceiptPlace> {
  const [location, register] = await Promise.all([
    operation.locationId ? tx.location.findUnique({ where: { id: operation.locationId } }) : null,
    operation.registerId ? tx.register.findUnique({ where: { id: operation.registerId } }) : null,
  ]);
  return { location, register };
}

/**
 * The public token of a receipt about to be issued. It is drawn before the operation is signed,
 * so the fiscal record can name the hosted page; the hosted link is the customer's only
 * credential: 32 base62 characters (~190 bits).
 */
export const newReceiptToken = (): string => randomBase62(32);

/** Issues the receipt of a completed operation inside the completing transaction, under `publicToken` (newReceiptToken); returns its id. */
export async function issueReceipt(
  sql: SqlClient,
  merchant: Merchant,
  operation: Operation,
  issuedAt: Date,
  place: ReceiptPlace,
  publicToken: string,
): Promise<string> {
  const id = newId('rcp');
  const document = buildReceiptSnapshot({ operation, merchant, ...place, issuedAt });
  await sql.write(
    `INSERT INTO receipts (id, merchant_id, operation_id, public_token, status, issued_at, document)
     VALUES ($1, $2, $3, $4, 'available', $5, $6::json)`,
    [id, merchant.id, operation.id, publicToken, issuedAt, JSON.stringify(document)],
  );
  return id;
}

/**
 * Rebuilds the receipt of an operation whose fiscal data arrived after the
 * receipt was issued (a refund signed by the fiscal retry): same id, link and
 * issue time, the signature added, and the snapshot's version incremented.
 */
export async function reissueReceipt(tx: Tx, merchant: Merchant, operation: Operation): Promise<Receipt | null> {
  const receipt = await tx.receipt.findUnique({ where: { operationId: operation.id } });
  if (!receipt) return null;
  const previous = receipt.document as unknown as ReceiptSnapshot;
  const snapshot = buildReceiptSnapshot({ operation, merchant, ...(await receiptPlaceOf(tx, operation)), issuedAt: receipt.issuedAt });
  return tx.receipt.update({
    where: { id: receipt.id },
    data: { document: { ...snapshot, version: (previous.version ?? 1) + 1 } },
  });
}

export async function getReceipt(ctx: AppContext, merchant: Merchant, id: string): Promise<Receipt> {
  const receipt = await ctx.db.receipt.findFirst({ where: { id, merchantId: merchant.id } });
  if (!receipt) throw notFound('receipt', id);
  return receipt;
}

export async function getReceiptByToken(ctx: AppContext, token: string): Promise<Receipt> {
  const receipt = /^[0-9A-Za-z]{32}$/.test(token) ? await ctx.db.receipt.findUnique({ where: { publicToken: token } }) : null;
  if (!receipt) throw notFound('receipt');
  return receipt;
}
