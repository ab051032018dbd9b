-- Tables shaped like the ones one signed completion touches.
DROP TABLE IF EXISTS pgb_ops, pgb_tse, pgb_tse_tx, pgb_receipts, pgb_idempotency;
CREATE TABLE pgb_tse (id int PRIMARY KEY, signature_counter bigint NOT NULL, transaction_counter bigint NOT NULL);
CREATE TABLE pgb_ops (id bigint PRIMARY KEY, status text NOT NULL, resource_version int NOT NULL, fiscal jsonb, payments jsonb);
CREATE TABLE pgb_tse_tx (id bigserial PRIMARY KEY, tse_id int NOT NULL, transaction_number bigint NOT NULL, state text NOT NULL,
  start_sig bigint, finish_sig bigint, process_data text, UNIQUE (tse_id, transaction_number));
CREATE TABLE pgb_receipts (id bigserial PRIMARY KEY, op_id bigint NOT NULL, token text NOT NULL, document jsonb NOT NULL);
CREATE TABLE pgb_idempotency (id bigserial PRIMARY KEY, key text NOT NULL UNIQUE, state text NOT NULL, body jsonb);
INSERT INTO pgb_tse SELECT g, 0, 0 FROM generate_series(1, 50) g;
INSERT INTO pgb_ops SELECT g, 'open', 1, NULL, NULL FROM generate_series(1, 200000) g;
