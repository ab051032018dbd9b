-- CreateTable
CREATE TABLE "tenants" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "country_code" TEXT,
    "organization_id" TEXT,
    "prefix" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "merchants" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "legal_name" TEXT NOT NULL,
    "country_code" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "address" JSONB NOT NULL,
    "fiscal_identities" JSONB NOT NULL,
    "resource_version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merchants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "locations" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "address" JSONB NOT NULL,
    "timezone" TEXT NOT NULL,
    "external_id" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "resource_version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "locations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "registers" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "location_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "external_id" TEXT,
    "fiscalization_status" TEXT NOT NULL,
    "regime" TEXT,
    "fiscalized_at" TIMESTAMPTZ(3),
    "decommissioned_at" TIMESTAMPTZ(3),
    "tse_id" TEXT,
    "client_id" TEXT,
    "current_session_id" TEXT,
    "device_simulation" TEXT NOT NULL DEFAULT 'ok',
    "next_sequence_number" INTEGER NOT NULL DEFAULT 1,
    "next_closing_number" INTEGER NOT NULL DEFAULT 1,
    "resource_version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "registers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tse_devices" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "serial_number" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "private_key_enc" TEXT NOT NULL,
    "algorithm" TEXT NOT NULL,
    "signature_counter" BIGINT NOT NULL DEFAULT 0,
    "transaction_counter" BIGINT NOT NULL DEFAULT 0,
    "admin_pin_hash" TEXT,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decommissioned_at" TIMESTAMPTZ(3),

    CONSTRAINT "tse_devices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tse_transactions" (
    "id" TEXT NOT NULL,
    "tse_id" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "transaction_number" BIGINT NOT NULL,
    "state" TEXT NOT NULL,
    "start_signature_counter" BIGINT NOT NULL,
    "start_log_time" TIMESTAMPTZ(3) NOT NULL,
    "start_signature" TEXT NOT NULL,
    "finish_signature_counter" BIGINT,
    "finish_log_time" TIMESTAMPTZ(3),
    "finish_signature" TEXT,
    "process_type" TEXT,
    "process_data" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tse_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "register_sessions" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "register_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "opening_amount" DECIMAL(20,8) NOT NULL,
    "expected_closing_amount" DECIMAL(20,8),
    "counted_closing_amount" DECIMAL(20,8),
    "closing_cashcount_diff" DECIMAL(20,8),
    "closing_adjustment_amount" DECIMAL(20,8),
    "closing_number" INTEGER,
    "opened_at" TIMESTAMPTZ(3) NOT NULL,
    "counted_at" TIMESTAMPTZ(3),
    "closed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "register_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "operations" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "register_id" TEXT,
    "location_id" TEXT,
    "session_id" TEXT,
    "sequence_number" INTEGER,
    "external_id" TEXT,
    "pretax_amount" DECIMAL(20,8),
    "tax_amount" DECIMAL(20,8),
    "tip_amount" DECIMAL(20,8),
    "total_amount" DECIMAL(20,8),
    "line_items" JSONB NOT NULL DEFAULT '[]',
    "cart_level_discounts" JSONB NOT NULL DEFAULT '[]',
    "payments" JSONB NOT NULL DEFAULT '[]',
    "related_operation_id" TEXT,
    "external_related_operation" JSONB,
    "session_details" JSONB,
    "fiscal_information" JSONB,
    "pending_tse_transaction" JSONB,
    "note" TEXT,
    "void_reason" TEXT,
    "voided_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "receipt_id" TEXT,
    "resource_version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "operations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "receipts" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "operation_id" TEXT NOT NULL,
    "public_token" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "document" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "receipts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "merchant_scope" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "locked_until" TIMESTAMPTZ(3),
    "response_status" INTEGER,
    "response_body" JSONB,
    "response_headers" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_tenant_id_idx" ON "api_keys"("tenant_id");

-- CreateIndex
CREATE INDEX "merchants_tenant_id_created_at_idx" ON "merchants"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "locations_merchant_id_created_at_idx" ON "locations"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "registers_merchant_id_created_at_idx" ON "registers"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "registers_location_id_idx" ON "registers"("location_id");

-- CreateIndex
CREATE UNIQUE INDEX "tse_devices_serial_number_key" ON "tse_devices"("serial_number");

-- CreateIndex
CREATE UNIQUE INDEX "tse_transactions_tse_id_transaction_number_key" ON "tse_transactions"("tse_id", "transaction_number");

-- CreateIndex
CREATE INDEX "register_sessions_register_id_opened_at_idx" ON "register_sessions"("register_id", "opened_at");

-- CreateIndex
CREATE INDEX "operations_merchant_id_created_at_id_idx" ON "operations"("merchant_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "operations_session_id_idx" ON "operations"("session_id");

-- CreateIndex
CREATE INDEX "operations_related_operation_id_idx" ON "operations"("related_operation_id");

-- CreateIndex
CREATE UNIQUE INDEX "operations_register_id_sequence_number_key" ON "operations"("register_id", "sequence_number");

-- CreateIndex
CREATE UNIQUE INDEX "receipts_operation_id_key" ON "receipts"("operation_id");

-- CreateIndex
CREATE UNIQUE INDEX "receipts_public_token_key" ON "receipts"("public_token");

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_keys_tenant_id_merchant_scope_endpoint_key_key" ON "idempotency_keys"("tenant_id", "merchant_scope", "endpoint", "key");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "locations" ADD CONSTRAINT "locations_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "registers" ADD CONSTRAINT "registers_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "registers" ADD CONSTRAINT "registers_tse_id_fkey" FOREIGN KEY ("tse_id") REFERENCES "tse_devices"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tse_transactions" ADD CONSTRAINT "tse_transactions_tse_id_fkey" FOREIGN KEY ("tse_id") REFERENCES "tse_devices"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
