import type { SqlClient } from '../../db/sql.js';

/** Receipts read per query: bounded memory however long the journal. */
const PAGE_SIZE = 1000;

const SELECT_CASH_REGISTER = 'SELECT id, cash_register_id, certificate, certificate_chain FROM rksv_cash_registers WHERE register_id = $1';

/**
 * The receipt numbers that open and close a time range. Receipt dates never go
 * back (cashBox.ts), so the receipts signed in the range are exactly those
 * numbered between the two; both are found on the (register_id, signed_at) index.
 */
const SELECT_RANGE = `
  SELECT (SELECT receipt_number FROM rksv_receipts WHERE register_id = $1 AND signed_at >= $2
           ORDER BY signed_at, receipt_number LIMIT 1)::text AS first,
         (SELECT receipt_number FROM rksv_receipts WHERE register_id = $1 AND signed_at <= $3
           ORDER BY signed_at DESC, receipt_number DESC LIMIT 1)::text AS last`;

const SELECT_PAGE = `
  SELECT receipt_number::text AS number, jws FROM rksv_receipts
   WHERE rksv_cash_register_id = $1 AND receipt_number > $2::bigint AND receipt_number <= $3::bigint
   ORDER BY receipt_number LIMIT ${PAGE_SIZE}`;

/** The DEP (Datenerfassungsprotokoll) of one RKSV register: every receipt it signed, as signed. */
export interface DepJournal {
  /** The Kassen-ID, field 2 of every receipt. */
  cashRegisterId: string;
  /** Standard base64 DER of the signing certificate, null for a closed system (public key only). */
  certificate: string | null;
  /** Standard base64 DER of the certificates that issued it, in the order the trust service gave them. */
  certificateChain: string[];
  /** The compact JWS of every receipt signed in [from, to], in signing order, a page at a time. */
  receiptsSignedBetween(from: Date, to: Date): AsyncIterable<string[]>;
}

/** The register's DEP; null when the register has no RKSV signature unit. */
export async function depJournalOf(sql: SqlClient, registerId: string): Promise<DepJournal | null> {
  const [cashRegister] = await sql.query<{ id: string; cash_register_id: string; certificate: string | null; certificate_chain: string[] | null }>(
    SELECT_CASH_REGISTER,
    [registerId],
  );
  if (!cashRegister) return null;
  return {
    cashRegisterId: cashRegister.cash_register_id,
    certificate: cashRegister.certificate,
    certificateChain: cashRegister.certificate_chain ?? [],
    async *receiptsSignedBetween(from, to) {
      const [range] = await sql.query<{ first: string | null; last: string | null }>(SELECT_RANGE, [registerId, from, to]);
      if (!range?.first || !range.last) return;
      let after = (BigInt(range.first) - 1n).toString();
      for (;;) {
        const page = await sql.query<{ number: string; jws: string }>(SELECT_PAGE, [cashRegister.id, after, range.last]);
        if (page.length) yield page.map((receipt) => receipt.jws);
        if (page.length < PAGE_SIZE) return;
        after = page[page.length - 1].number;
      }
    },
  };
}
