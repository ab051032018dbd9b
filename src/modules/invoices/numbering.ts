import type { Tx } from '../../db/transaction.js';
import { CHAIN_START } from '../../domain/invoices/chainHash.js';

/**
 * The next invoice number of an organization's series in a year. The upsert takes the
 * counter row's lock until the transaction ends, so concurrent submissions (in any instance)
 * wait for each other, and a rolled-back one leaves no gap.
 */
export async function nextInvoiceNumber(tx: Tx, organizationId: string, series: string, year: number): Promise<number> {
  const [row] = await tx.$queryRaw<{ last_number: number }[]>`
    INSERT INTO invoice_counters (merchant_id, series, year, last_number) VALUES (${organizationId}, ${series}, ${year}, 1)
    ON CONFLICT (merchant_id, series, year) DO UPDATE SET last_number = invoice_counters.last_number + 1
    RETURNING last_number`;
  return row.last_number;
}

export interface ChainPosition {
  /** The submission's transmission sequence: 1, 2, ... per organization and jurisdiction. */
  sequence: number;
  /** The chain hash it follows: the previous submitted invoice's, or CHAIN_START. */
  previousChainHash: string;
}

/**
 * Takes the next place in an organization's chain for a jurisdiction, locking the chain head
 * until the transaction ends (so the chain is extended one invoice at a time); the caller
 * stores the new head with `extendChain`.
 */
export async function takeChainPosition(tx: Tx, organizationId: string, jurisdiction: string): Promise<ChainPosition> {
  const [row] = await tx.$queryRaw<{ last_sequence: number; last_chain_hash: string }[]>`
    INSERT INTO invoice_chains (merchant_id, jurisdiction, last_sequence, last_chain_hash) VALUES (${organizationId}, ${jurisdiction}, 1, ${CHAIN_START})
    ON CONFLICT (merchant_id, jurisdiction) DO UPDATE SET last_sequence = invoice_chains.last_sequence + 1
    RETURNING last_sequence, last_chain_hash`;
  return { sequence: row.last_sequence, previousChainHash: row.last_chain_hash };
}

export async function extendChain(tx: Tx, organizationId: string, jurisdiction: string, chainHash: string): Promise<void> {
  await tx.$executeRaw`UPDATE invoice_chains SET last_chain_hash = ${chainHash} WHERE merchant_id = ${organizationId} AND jurisdiction = ${jurisdiction}`;
}
