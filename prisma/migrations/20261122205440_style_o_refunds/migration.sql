-- AlterTable
ALTER TABLE "operations" ADD COLUMN     "cashier" JSONB,
ADD COLUMN     "fiscal_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "fiscal_error" JSONB,
ADD COLUMN     "fiscal_retry_at" TIMESTAMPTZ(3),
ADD COLUMN     "fiscal_state" TEXT,
ADD COLUMN     "metadata" JSONB,
ADD COLUMN     "reason" TEXT,
ADD COLUMN     "refund_type" TEXT,
ADD COLUMN     "style_o_data" JSONB;

-- CreateIndex
CREATE INDEX "operations_fiscal_state_fiscal_retry_at_idx" ON "operations"("fiscal_state", "fiscal_retry_at");
