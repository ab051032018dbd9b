-- AlterTable: the organization's channel configuration that received an invoice's file (null: the
-- deployment's default did), and the channel's notifications already applied to it.
ALTER TABLE "invoices" ADD COLUMN     "channel_config_id" TEXT,
ADD COLUMN     "channel_notification_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable: the channel an organization chose for a jurisdiction's invoices (Style O invoice channels).
CREATE TABLE "invoice_channels" (
    "merchant_id" TEXT NOT NULL,
    "jurisdiction" TEXT NOT NULL,
    "config_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoice_channels_pkey" PRIMARY KEY ("merchant_id","jurisdiction")
);

-- CreateTable: a driver's account for an organization and jurisdiction, its secrets sealed with SECRETS_KEY;
-- kept after the channel moves on, for the invoices it received.
CREATE TABLE "invoice_channel_configs" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "jurisdiction" TEXT NOT NULL,
    "driver" TEXT NOT NULL,
    "account_key" TEXT NOT NULL,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "secrets_sealed" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoice_channel_configs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "invoice_channel_configs_merchant_id_jurisdiction_driver_acc_key" ON "invoice_channel_configs"("merchant_id", "jurisdiction", "driver", "account_key");

-- AddForeignKey
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_channel_config_id_fkey" FOREIGN KEY ("channel_config_id") REFERENCES "invoice_channel_configs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoice_channels" ADD CONSTRAINT "invoice_channels_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoice_channels" ADD CONSTRAINT "invoice_channels_config_id_fkey" FOREIGN KEY ("config_id") REFERENCES "invoice_channel_configs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoice_channel_configs" ADD CONSTRAINT "invoice_channel_configs_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
