import type { Merchant, Operation, Receipt, Register } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { notFound } from '../../http/errors.js';
import { newId, randomBase62 } from '../../lib/ids.js';
import type { Tx } from '../common/transactions.js';
import { buildReceiptSnapshot, type ReceiptSnapshot } from './snapshot.js';

/** Issues the receipt of a completed goods movement, inside the completing transaction. */
export async function issueReceipt(
  tx: Tx,
  merchant: Merchant,
  operation: Operation,
  issuedAt: Date,
  known: { register?: Register | null } = {},
): Promise<Receipt> {
  const [location, register] = await Promise.all([
    operation.locationId ? tx.location.findUnique({ where: { id: operation.locationId } }) : null,
    known.register !== undefined ? known.register : operation.registerId ? tx.register.findUnique({ where: { id: operation.registerId } }) : null,
  ]);
  return tx.receipt.create({
    data: {
      id: newId('rcp'),
      merchantId: merchant.id,
      operationId: operation.id,
      // The hosted link is the customer's only credential: 32 base62 characters (~190 bits).
      publicToken: randomBase62(32),
      status: 'available',
      issuedAt,
      document: { ...buildReceiptSnapshot({ operation, merchant, location, register, issuedAt }) },
    },
  });
}

/**
 * Rebuilds the receipt of an operation whose fiscal data arrived after the
 * receipt was issued (a refund signed by the fiscal retry): same id, link and
 * issue time, the signature added, and the snapshot's version incremented.
 */
export async function reissueReceipt(tx: Tx, merchant: Merchant, operation: Operation): Promise<Receipt | null> {
  const receipt = await tx.receipt.findUnique({ where: { operationId: operation.id } });
  if (!receipt) return null;
  const [location, register] = await Promise.all([
    operation.locationId ? tx.location.findUnique({ where: { id: operation.locationId } }) : null,
    operation.registerId ? tx.register.findUnique({ where: { id: operation.registerId } }) : null,
  ]);
  const previous = receipt.document as unknown as ReceiptSnapshot;
  const snapshot = buildReceiptSnapshot({ operation, merchant, location, register, issuedAt: receipt.issuedAt });
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
