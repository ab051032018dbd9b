-- AlterTable
ALTER TABLE "registers" ADD COLUMN     "device_serial" TEXT;

-- Registers fiscalized before the column existed: KassenSichV, whose device serial is the TSE's.
UPDATE "registers" r SET "device_serial" = t."serial_number" FROM "tse_devices" t WHERE t."id" = r."tse_id";
