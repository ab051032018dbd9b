-- Tables shaped like the ones one signed completion reads and writes.
DROP TABLE IF EXISTS pgb_keys, pgb_merchants, pgb_ops, pgb_registers, pgb_tse, pgb_tse_tx, pgb_receipts, pgb_idempotency, pgb_outbox;
DROP SEQUENCE IF EXISTS pgb_sale_ids;
CREATE TABLE pgb_merchants (id int PRIMARY KEY, legal_name text NOT NULL, address jsonb NOT NULL);
CREATE TABLE pgb_keys (key_hash text PRIMARY KEY, tenant_id int NOT NULL, revoked_at timestamptz);
CREATE TABLE pgb_tse (id int PRIMARY KEY, serial_number text NOT NULL, signature_counter bigint NOT NULL, transaction_counter bigint NOT NULL);
CREATE TABLE pgb_registers (id int PRIMARY KEY, tse_id int NOT NULL, name text NOT NULL);
CREATE TABLE pgb_ops (id bigint PRIMARY KEY, register_id int NOT NULL, status text NOT NULL, resource_version int NOT NULL,
  total_amount numeric(20, 8) NOT NULL, line_items jsonb NOT NULL, fiscal jsonb, payments jsonb, receipt_id bigint);
CREATE TABLE pgb_tse_tx (id bigserial PRIMARY KEY, tse_id int NOT NULL, transaction_number bigint NOT NULL, state text NOT NULL,
  start_sig bigint, finish_sig bigint, process_data text, UNIQUE (tse_id, transaction_number));
CREATE TABLE pgb_receipts (id bigserial PRIMARY KEY, op_id bigint NOT NULL UNIQUE, token text NOT NULL UNIQUE, document jsonb NOT NULL);
CREATE TABLE pgb_idempotency (id bigserial PRIMARY KEY, key text NOT NULL UNIQUE, status int NOT NULL, body jsonb);
-- An event row as the outbox keeps it, for signedSale.sql.
CREATE TABLE pgb_outbox (id bigserial PRIMARY KEY, op_id bigint NOT NULL, type text NOT NULL, data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
-- New sales' ids, above the 200,000 open ones completion.sql completes.
CREATE SEQUENCE pgb_sale_ids START 1000000;
INSERT INTO pgb_merchants VALUES (1, 'Bench GmbH', '{"city": "Berlin"}');
INSERT INTO pgb_keys VALUES ('k1', 1, NULL);
INSERT INTO pgb_tse SELECT g, md5(g::text), 0, 0 FROM generate_series(1, 50) g;
INSERT INTO pgb_registers SELECT g, g, 'Kasse ' || g FROM generate_series(1, 50) g;
INSERT INTO pgb_ops SELECT g, 1 + g % 50, 'open', 1, 11.90, '[{"title": "Brot", "total_amount": "11.90"}]', NULL, NULL, NULL
  FROM generate_series(1, 200000) g;
