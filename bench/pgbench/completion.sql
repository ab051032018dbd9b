-- One signed completion as the service runs it: the key and merchant, the
-- idempotency lookup, then one transaction that locks the operation with its
-- register and TSE, takes both TSE counters, records the TSE transaction,
-- issues the receipt, completes the operation and stores the response.
\set op random(1, 200000)
\set key random(1, 2000000000)
SELECT k.tenant_id, m.legal_name, m.address FROM pgb_keys k LEFT JOIN pgb_merchants m ON m.id = 1 WHERE k.key_hash = 'k1';
SELECT status, body FROM pgb_idempotency WHERE key = 'k' || :key;
BEGIN;
SELECT o.*, r.name, t.serial_number FROM pgb_ops o JOIN pgb_registers r ON r.id = o.register_id JOIN pgb_tse t ON t.id = r.tse_id
 WHERE o.id = :op FOR UPDATE OF o;
UPDATE pgb_tse SET transaction_counter = transaction_counter + 1, signature_counter = signature_counter + 2
 WHERE id = 1 + :op % 50 RETURNING transaction_counter, signature_counter \gset
INSERT INTO pgb_tse_tx (tse_id, transaction_number, state, start_sig, finish_sig, process_data)
 VALUES (1 + :op % 50, :transaction_counter, 'finished', :signature_counter - 1, :signature_counter, 'Beleg^11.90_0.00_0.00_0.00_0.00^11.90:Bar');
INSERT INTO pgb_receipts (op_id, token, document) VALUES (:op, md5(random()::text || clock_timestamp()::text), '{"lines": [], "totals": {}}')
 ON CONFLICT (op_id) DO UPDATE SET document = EXCLUDED.document RETURNING id \gset receipt_
UPDATE pgb_ops SET status = 'completed', resource_version = resource_version + 1, fiscal = '{"signed": true}',
  payments = '[{"method": "cash", "amount": "11.90"}]', receipt_id = :receipt_id WHERE id = :op;
INSERT INTO pgb_idempotency (key, status, body) VALUES ('k' || :key, 200, '{"ok": true}') ON CONFLICT (key) DO NOTHING;
COMMIT;
