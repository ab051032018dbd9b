-- CreateTable
CREATE TABLE "fiscal_certificates" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "jurisdiction" TEXT NOT NULL,
    "label" TEXT,
    "certificate_der" BYTEA NOT NULL,
    "subject" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "serial_number" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "valid_from" TIMESTAMPTZ(3) NOT NULL,
    "valid_until" TIMESTAMPTZ(3) NOT NULL,
    "private_key_sealed" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "fiscal_certificates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "fiscal_certificate_reminders" (
    "certificate_id" TEXT NOT NULL,
    "threshold_days" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fiscal_certificate_reminders_pkey" PRIMARY KEY ("certificate_id","threshold_days")
);

-- CreateTable
CREATE TABLE "fiscal_portal_credentials" (
    "id" TEXT NOT NULL,
    "merchant_id" TEXT NOT NULL,
    "portal_type" TEXT NOT NULL,
    "jurisdiction" TEXT NOT NULL,
    "label" TEXT,
    "state" TEXT NOT NULL,
    "tax_id_number_sealed" TEXT,
    "participant_id_sealed" TEXT,
    "user_id_sealed" TEXT,
    "pin_sealed" TEXT,
    "password_sealed" TEXT,
    "password_set_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "expiry_reminded_for" TIMESTAMPTZ(3),
    "last_validated_at" TIMESTAMPTZ(3),
    "validation_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fiscal_portal_credentials_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "fiscal_certificates_merchant_id_created_at_idx" ON "fiscal_certificates"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "fiscal_certificates_valid_until_idx" ON "fiscal_certificates"("valid_until");

-- CreateIndex
CREATE UNIQUE INDEX "fiscal_certificates_merchant_id_fingerprint_key" ON "fiscal_certificates"("merchant_id", "fingerprint");

-- CreateIndex
CREATE INDEX "fiscal_portal_credentials_merchant_id_created_at_idx" ON "fiscal_portal_credentials"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "fiscal_portal_credentials_expires_at_idx" ON "fiscal_portal_credentials"("expires_at");

-- AddForeignKey
ALTER TABLE "fiscal_certificates" ADD CONSTRAINT "fiscal_certificates_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "fiscal_certificate_reminders" ADD CONSTRAINT "fiscal_certificate_reminders_certificate_id_fkey" FOREIGN KEY ("certificate_id") REFERENCES "fiscal_certificates"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "fiscal_portal_credentials" ADD CONSTRAINT "fiscal_portal_credentials_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
