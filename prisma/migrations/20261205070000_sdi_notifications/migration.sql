-- CreateTable: the notifications the SdI pushed to an sdicoop configuration's TrasmissioneFatture
-- endpoint, once per notification file name, read by that configuration's channel in arrival order.
CREATE TABLE "sdi_notifications" (
    "id" BIGSERIAL NOT NULL,
    "config_id" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    "invoice_file_name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "notification" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sdi_notifications_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sdi_notifications_config_id_file_name_key" ON "sdi_notifications"("config_id", "file_name");

-- CreateIndex
CREATE INDEX "sdi_notifications_config_id_invoice_file_name_id_idx" ON "sdi_notifications"("config_id", "invoice_file_name", "id");

-- CreateIndex: a push makes the job of the invoice it is about due at once.
CREATE INDEX "invoices_channel_config_id_document_file_name_idx" ON "invoices"("channel_config_id", "document_file_name");

-- AddForeignKey
ALTER TABLE "sdi_notifications" ADD CONSTRAINT "sdi_notifications_config_id_fkey" FOREIGN KEY ("config_id") REFERENCES "invoice_channel_configs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
