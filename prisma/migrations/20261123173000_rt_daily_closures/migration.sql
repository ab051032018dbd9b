-- AlterTable
ALTER TABLE "export_jobs" ADD COLUMN     "run_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- AlterTable
ALTER TABLE "rt_devices" ADD COLUMN     "authority_simulation" TEXT NOT NULL DEFAULT 'ok',
ADD COLUMN     "certificate" TEXT,
ADD COLUMN     "sealed_private_key" TEXT,
ADD COLUMN     "transmission_progressive" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "rt_daily_closures" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "register_id" TEXT NOT NULL,
    "rt_device_id" TEXT NOT NULL,
    "fiscal_day" INTEGER NOT NULL,
    "closed_at" TIMESTAMPTZ(3) NOT NULL,
    "document_count" INTEGER NOT NULL,
    "totals" JSONB NOT NULL,
    "paid_cash" DECIMAL(18,2) NOT NULL,
    "paid_electronic" DECIMAL(18,2) NOT NULL,
    "cor10" TEXT,
    "transmission_status" TEXT NOT NULL,
    "transmitted_at" TIMESTAMPTZ(3),
    "transmission_errors" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rt_daily_closures_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rt_transmission_jobs" (
    "id" TEXT NOT NULL,
    "closure_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "worker_id" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "run_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rt_transmission_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "rt_daily_closures_register_id_closed_at_idx" ON "rt_daily_closures"("register_id", "closed_at");

-- CreateIndex
CREATE UNIQUE INDEX "rt_daily_closures_rt_device_id_fiscal_day_key" ON "rt_daily_closures"("rt_device_id", "fiscal_day");

-- CreateIndex
CREATE UNIQUE INDEX "rt_transmission_jobs_closure_id_key" ON "rt_transmission_jobs"("closure_id");

-- CreateIndex
CREATE INDEX "rt_transmission_jobs_status_run_after_idx" ON "rt_transmission_jobs"("status", "run_after");

-- AddForeignKey
ALTER TABLE "rt_daily_closures" ADD CONSTRAINT "rt_daily_closures_rt_device_id_fkey" FOREIGN KEY ("rt_device_id") REFERENCES "rt_devices"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rt_transmission_jobs" ADD CONSTRAINT "rt_transmission_jobs_closure_id_fkey" FOREIGN KEY ("closure_id") REFERENCES "rt_daily_closures"("id") ON DELETE CASCADE ON UPDATE CASCADE;
