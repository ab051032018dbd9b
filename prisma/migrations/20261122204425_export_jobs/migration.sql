-- CreateTable
CREATE TABLE "export_jobs" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "register_id" TEXT,
    "from_time" TIMESTAMPTZ(3) NOT NULL,
    "to_time" TIMESTAMPTZ(3) NOT NULL,
    "error" JSONB,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "worker_id" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "byte_size" BIGINT,
    "file_sha256" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "export_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "export_chunks" (
    "job_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "sequence" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "export_chunks_pkey" PRIMARY KEY ("job_id","attempt","sequence")
);

-- CreateIndex
CREATE INDEX "export_jobs_status_created_at_idx" ON "export_jobs"("status", "created_at");

-- CreateIndex
CREATE INDEX "export_jobs_merchant_id_created_at_idx" ON "export_jobs"("merchant_id", "created_at");

-- AddForeignKey
ALTER TABLE "export_chunks" ADD CONSTRAINT "export_chunks_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "export_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
