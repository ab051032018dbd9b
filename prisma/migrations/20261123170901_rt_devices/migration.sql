-- AlterTable
ALTER TABLE "operations" ADD COLUMN     "lottery_code" TEXT;

-- CreateTable
CREATE TABLE "rt_devices" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "register_id" TEXT NOT NULL,
    "driver" TEXT NOT NULL,
    "serial" TEXT NOT NULL,
    "url" TEXT,
    "printer_device_id" TEXT,
    "departments" JSONB,
    "fiscal_day" INTEGER NOT NULL DEFAULT 1,
    "progressive" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rt_devices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rt_documents" (
    "id" TEXT NOT NULL,
    "rt_device_id" TEXT NOT NULL,
    "register_id" TEXT NOT NULL,
    "operation_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "fiscal_day" INTEGER NOT NULL,
    "progressive" INTEGER NOT NULL,
    "document_number" TEXT NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "totals" JSONB NOT NULL,
    "paid_cash" DECIMAL(18,2) NOT NULL,
    "paid_electronic" DECIMAL(18,2) NOT NULL,
    "lottery_code" TEXT,
    "reference" JSONB,

    CONSTRAINT "rt_documents_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "rt_devices_register_id_key" ON "rt_devices"("register_id");

-- CreateIndex
CREATE UNIQUE INDEX "rt_devices_merchant_id_serial_key" ON "rt_devices"("merchant_id", "serial");

-- CreateIndex
CREATE INDEX "rt_documents_register_id_issued_at_idx" ON "rt_documents"("register_id", "issued_at");

-- CreateIndex
CREATE INDEX "rt_documents_rt_device_id_document_number_idx" ON "rt_documents"("rt_device_id", "document_number");

-- CreateIndex
CREATE UNIQUE INDEX "rt_documents_rt_device_id_fiscal_day_progressive_key" ON "rt_documents"("rt_device_id", "fiscal_day", "progressive");

-- AddForeignKey
ALTER TABLE "rt_documents" ADD CONSTRAINT "rt_documents_rt_device_id_fkey" FOREIGN KEY ("rt_device_id") REFERENCES "rt_devices"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
