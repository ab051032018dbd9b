-- AlterTable: a TSE is the service's software TSE or a certified remote one reached through a driver
-- (fiskaly SIGN DE); a remote TSE has no private key here, only its sealed connection (credentials).
ALTER TABLE "tse_devices" ALTER COLUMN "private_key_enc" DROP NOT NULL;
ALTER TABLE "tse_devices" ADD COLUMN     "driver" TEXT NOT NULL DEFAULT 'software';
ALTER TABLE "tse_devices" ADD COLUMN     "connection_enc" TEXT;
