import type { SqlClient } from '../../db/sql.js';
import type { FiscalRecord, ReturnedOriginal } from '../../fiscal/fiscalDevice.js';

interface OriginalRow {
  total_amount: string | null;
  fiscal_information: FiscalRecord | null;
  returned_amount: string;
}

/**
 * The original: its total, its signed record, and what returns and refunds recorded
 * before gave back of it (open or completed, `excluding` the operation at hand), as a
 * positive amount.
 */
const ORIGINAL = `
  SELECT o.total_amount::text AS total_amount, o.fiscal_information,
         COALESCE((SELECT SUM(-r.total_amount) FROM operations r
                    WHERE r.related_operation_id = o.id AND r.type IN ('return', 'refund')
                      AND r.status IN ('open', 'completed') AND r.id <> $3), 0)::text AS returned_amount
    FROM operations o
   WHERE o.id = $1 AND o.merchant_id = $2`;

/**
 * The original a return, exchange or refund gives goods back for, as the fiscal
 * layer takes it (ReturnedOriginal): a recorded operation, or the
 * `external_related_operation` sent for one never ingested; null for a sale.
 */
export async function returnedOriginalOf(
  sql: SqlClient,
  merchantId: string,
  movement: { id: string | null; relatedOperationId: string | null; externalRelatedOperation: unknown },
): Promise<ReturnedOriginal | null> {
  if (movement.relatedOperationId) {
    const [row] = await sql.query<OriginalRow>(ORIGINAL, [movement.relatedOperationId, merchantId, movement.id ?? '']);
    if (!row) return null;
    return { kind: 'recorded', totalAmount: row.total_amount ?? '0', returnedAmount: row.returned_amount, fiscal: row.fiscal_information };
  }
  if (movement.externalRelatedOperation && typeof movement.externalRelatedOperation === 'object') {
    return { kind: 'external', fields: movement.externalRelatedOperation as Record<string, unknown> };
  }
  return null;
}
