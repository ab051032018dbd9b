-- The least a signed sale costs the database, as bench:compare's ceiling: one transaction that
-- inserts the operation, takes the register's signature counter and writes the outbox row.
\set register random(1, 50)
BEGIN;
INSERT INTO pgb_ops (id, register_id, status, resource_version, total_amount, line_items, fiscal, payments)
 VALUES (nextval('pgb_sale_ids'), :register, 'completed', 1, 11.90, '[{"title": "Brot", "total_amount": "11.90"}]', '{"signed": true}',
         '[{"method": "cash", "amount": "11.90"}]') RETURNING id AS sale_id \gset
UPDATE pgb_tse SET transaction_counter = transaction_counter + 1, signature_counter = signature_counter + 2 WHERE id = :register;
INSERT INTO pgb_outbox (op_id, type, data) VALUES (:sale_id, 'operation.completed', '{"object": {"status": "completed"}}');
COMMIT;
