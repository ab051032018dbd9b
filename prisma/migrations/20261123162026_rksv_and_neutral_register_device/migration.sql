-- DropForeignKey
ALTER TABLE "registers" DROP CONSTRAINT "registers_tse_id_fkey";

-- AlterTable: the register's device reference is regime-neutral (KassenSichV: a TSE, RKSV: an RKSV cash register)
ALTER TABLE "registers" RENAME COLUMN "tse_id" TO "device_id";
ALTER TABLE "registers" ADD COLUMN     "device_details" JSONB;

-- Registers fiscalized before the column existed: KassenSichV, whose device details name the TSE's signature algorithm.
UPDATE "registers" r SET "device_details" = jsonb_build_object('signature_algorithm', t."algorithm") FROM "tse_devices" t WHERE t."id" = r."device_id";

-- CreateTable
CREATE TABLE "rksv_cash_registers" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "register_id" TEXT NOT NULL,
    "cash_register_id" TEXT NOT NULL,
    "signature_device_id" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "private_key_enc" TEXT NOT NULL,
    "aes_key_enc" TEXT NOT NULL,
    "turnover_counter_size" INTEGER NOT NULL DEFAULT 8,
    "receipt_count" BIGINT NOT NULL DEFAULT 0,
    "turnover_counter_cents" BIGINT NOT NULL DEFAULT 0,
    "last_jws" TEXT,
    "last_signed_at" TIMESTAMPTZ(3),
    "closed_month" TEXT,
    "signature_failed_since" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rksv_cash_registers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rksv_receipts" (
    "id" TEXT NOT NULL,
    "rksv_cash_register_id" TEXT NOT NULL,
    "register_id" TEXT NOT NULL,
    "receipt_number" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "operation_id" TEXT,
    "signed_at" TIMESTAMPTZ(3) NOT NULL,
    "amounts_cents" BIGINT[],
    "turnover_counter_cents" BIGINT NOT NULL,
    "jws" TEXT NOT NULL,
    "signature_device_failed" BOOLEAN NOT NULL,

    CONSTRAINT "rksv_receipts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "rksv_cash_registers_register_id_key" ON "rksv_cash_registers"("register_id");

-- CreateIndex
CREATE UNIQUE INDEX "rksv_cash_registers_merchant_id_cash_register_id_key" ON "rksv_cash_registers"("merchant_id", "cash_register_id");

-- CreateIndex
CREATE INDEX "rksv_receipts_register_id_signed_at_idx" ON "rksv_receipts"("register_id", "signed_at");

-- CreateIndex
CREATE UNIQUE INDEX "rksv_receipts_rksv_cash_register_id_receipt_number_key" ON "rksv_receipts"("rksv_cash_register_id", "receipt_number");

-- AddForeignKey
ALTER TABLE "rksv_receipts" ADD CONSTRAINT "rksv_receipts_rksv_cash_register_id_fkey" FOREIGN KEY ("rksv_cash_register_id") REFERENCES "rksv_cash_registers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
