-- CreateTable: what an Austrian register's lifecycle sends to FinanzOnline (registration of its
-- signature unit and cash register with the start receipt's check, outage and recovery reports,
-- decommission): a row of the leased job queue, written in the transaction of the change it reports.
CREATE TABLE "finanz_online_submissions" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "register_id" TEXT NOT NULL,
    "rksv_cash_register_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "steps_done" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "worker_id" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "run_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "finanz_online_submissions_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "finanz_online_submissions_status_run_after_idx" ON "finanz_online_submissions"("status", "run_after");
CREATE INDEX "finanz_online_submissions_register_id_seq_idx" ON "finanz_online_submissions"("register_id", "seq");

-- AlterTable: the sandbox's FinanzOnline simulation of the register, and the start of the outage
-- already reported to FinanzOnline (a recovery is reported only for an outage that was).
ALTER TABLE "rksv_cash_registers" ADD COLUMN     "authority_simulation" TEXT NOT NULL DEFAULT 'ok',
ADD COLUMN     "outage_reported_for" TIMESTAMPTZ(3);
