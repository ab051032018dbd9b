-- AlterTable: a software TSE's certificate chain for the TAR export (BSI TR-03153): the leaf for its
-- public key and the root CA made for it at provisioning. TSEs provisioned before get theirs at their
-- first export.
ALTER TABLE "tse_devices" ADD COLUMN     "certificate" TEXT,
ADD COLUMN     "root_certificate" TEXT;
