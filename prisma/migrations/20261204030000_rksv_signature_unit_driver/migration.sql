-- AlterTable: an RKSV register signs with the service's software unit (closed system, R1-AT0) or with a
-- trust service's online unit reached through a driver (A-Trust a.sign RK online, R1-AT1); a remote unit
-- has no private key here, only its sealed connection (credentials), its certificate and CA chain.
ALTER TABLE "rksv_cash_registers" ALTER COLUMN "private_key_enc" DROP NOT NULL;
ALTER TABLE "rksv_cash_registers" ADD COLUMN     "driver" TEXT NOT NULL DEFAULT 'software',
ADD COLUMN     "connection_enc" TEXT,
ADD COLUMN     "suite" TEXT NOT NULL DEFAULT 'R1-AT0',
ADD COLUMN     "certificate" TEXT,
ADD COLUMN     "certificate_chain" TEXT[];
