-- AlterTable
ALTER TABLE "idempotency_keys" DROP COLUMN "locked_until",
DROP COLUMN "state";
