-- CreateTable
CREATE TABLE "invoices" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "jurisdiction" TEXT NOT NULL,
    "document_type" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "series" TEXT NOT NULL,
    "issue_date" TEXT,
    "currency" TEXT NOT NULL,
    "seller" JSONB NOT NULL,
    "buyer" JSONB NOT NULL,
    "buyer_tax_id" TEXT,
    "line_items" JSONB NOT NULL,
    "totals" JSONB NOT NULL,
    "payment_terms" JSONB,
    "routing" JSONB NOT NULL,
    "notes" JSONB NOT NULL DEFAULT '[]',
    "references" JSONB NOT NULL,
    "original_invoice_id" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "invoice_number" TEXT,
    "transmission_sequence" INTEGER,
    "document" BYTEA,
    "document_file_name" TEXT,
    "document_sha256" TEXT,
    "jurisdiction_data" JSONB,
    "chain_hash" TEXT,
    "transmission_status" TEXT NOT NULL,
    "delivery_status" TEXT,
    "authority_identifier" TEXT,
    "fiscal_errors" JSONB NOT NULL DEFAULT '[]',
    "acceptance_due_at" TIMESTAMPTZ(3),
    "cancellation_credit_note_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "submitted_at" TIMESTAMPTZ(3),
    "transmitted_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),

    CONSTRAINT "invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoice_state_changes" (
    "id" BIGSERIAL NOT NULL,
    "invoice_id" TEXT NOT NULL,
    "from_state" TEXT,
    "to_state" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "changed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "invoice_state_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoice_counters" (
    "merchant_id" TEXT NOT NULL,
    "series" TEXT NOT NULL,
    "year" INTEGER NOT NULL,
    "last_number" INTEGER NOT NULL,

    CONSTRAINT "invoice_counters_pkey" PRIMARY KEY ("merchant_id","series","year")
);

-- CreateTable
CREATE TABLE "invoice_chains" (
    "merchant_id" TEXT NOT NULL,
    "jurisdiction" TEXT NOT NULL,
    "last_sequence" INTEGER NOT NULL,
    "last_chain_hash" TEXT NOT NULL,

    CONSTRAINT "invoice_chains_pkey" PRIMARY KEY ("merchant_id","jurisdiction")
);

-- CreateTable
CREATE TABLE "invoice_transmission_jobs" (
    "id" TEXT NOT NULL,
    "invoice_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "worker_id" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "run_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoice_transmission_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "invoices_merchant_id_created_at_idx" ON "invoices"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "invoices_merchant_id_buyer_tax_id_idx" ON "invoices"("merchant_id", "buyer_tax_id");

-- CreateIndex
CREATE INDEX "invoices_original_invoice_id_idx" ON "invoices"("original_invoice_id");

-- CreateIndex
CREATE INDEX "invoices_state_acceptance_due_at_idx" ON "invoices"("state", "acceptance_due_at");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_merchant_id_invoice_number_key" ON "invoices"("merchant_id", "invoice_number");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_merchant_id_jurisdiction_transmission_sequence_key" ON "invoices"("merchant_id", "jurisdiction", "transmission_sequence");

-- CreateIndex
CREATE INDEX "invoice_state_changes_invoice_id_id_idx" ON "invoice_state_changes"("invoice_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "invoice_transmission_jobs_invoice_id_key" ON "invoice_transmission_jobs"("invoice_id");

-- CreateIndex
CREATE INDEX "invoice_transmission_jobs_status_run_after_idx" ON "invoice_transmission_jobs"("status", "run_after");

-- AddForeignKey
ALTER TABLE "invoice_state_changes" ADD CONSTRAINT "invoice_state_changes_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoice_transmission_jobs" ADD CONSTRAINT "invoice_transmission_jobs_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;
