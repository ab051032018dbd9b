-- One signed completion as the service does it: claim the idempotency key,
-- lock the operation, take both TSE counters, record the TSE transaction,
-- complete the operation, issue the receipt, store the response.
\set op random(1, 200000)
\set tse random(1, 50)
INSERT INTO pgb_idempotency (key, state) VALUES (md5(random()::text || clock_timestamp()::text), 'in_progress');
BEGIN;
SELECT id, status, resource_version FROM pgb_ops WHERE id = :op FOR UPDATE;
UPDATE pgb_tse SET transaction_counter = transaction_counter + 1, signature_counter = signature_counter + 1 WHERE id = :tse RETURNING transaction_counter, signature_counter;
INSERT INTO pgb_tse_tx (tse_id, transaction_number, state, start_sig) SELECT :tse, transaction_counter, 'started', signature_counter FROM pgb_tse WHERE id = :tse;
UPDATE pgb_tse SET signature_counter = signature_counter + 1 WHERE id = :tse RETURNING signature_counter;
UPDATE pgb_tse_tx SET state = 'finished', finish_sig = 1, process_data = 'Beleg^11.90_0.00_0.00_0.00_0.00^11.90:Bar' WHERE tse_id = :tse AND transaction_number = (SELECT transaction_counter FROM pgb_tse WHERE id = :tse);
UPDATE pgb_ops SET status = 'completed', resource_version = resource_version + 1, fiscal = '{"signed": true}', payments = '[]' WHERE id = :op;
INSERT INTO pgb_receipts (op_id, token, document) VALUES (:op, md5(random()::text), '{"lines": []}');
UPDATE pgb_idempotency SET state = 'completed', body = '{"ok": true}' WHERE id = (SELECT max(id) FROM pgb_idempotency);
COMMIT;
