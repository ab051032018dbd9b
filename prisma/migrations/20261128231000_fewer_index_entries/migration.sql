-- Fewer index entries for every signed sale. A stored response is found by its whole key
-- (tenant, merchant scope, endpoint, Idempotency-Key), so that key is the primary key, and
-- the random id beside it, which nothing read, goes with its index: one entry less a mutation.
-- Only returns, exchanges and refunds relate to another operation, and only refunds have a
-- fiscal_state: the two indexes of those columns keep only those rows, two entries less a sale.
-- A query that looks for a value (related_operation_id = $1, fiscal_state IN (...)) implies
-- the predicate, so it still uses them.
-- DropIndex
DROP INDEX "idempotency_keys_tenant_id_merchant_scope_endpoint_key_key";

-- DropIndex
DROP INDEX "operations_fiscal_state_fiscal_retry_at_idx";

-- DropIndex
DROP INDEX "operations_related_operation_id_idx";

-- AlterTable
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_pkey",
DROP COLUMN "id",
ADD CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("tenant_id", "merchant_scope", "endpoint", "key");

-- CreateIndex
CREATE INDEX "operations_related_operation_id_idx" ON "operations"("related_operation_id") WHERE (related_operation_id IS NOT NULL);

-- CreateIndex
CREATE INDEX "operations_fiscal_state_fiscal_retry_at_idx" ON "operations"("fiscal_state", "fiscal_retry_at") WHERE (fiscal_state IS NOT NULL);
