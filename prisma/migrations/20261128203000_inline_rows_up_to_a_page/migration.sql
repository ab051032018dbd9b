-- Rows of up to a page stay inline and uncompressed in the tables every signed mutation
-- writes. PostgreSQL compresses any row over 2 kB (TOAST_TUPLE_THRESHOLD) with pglz: a
-- completed operation, its receipt, its event and its stored response are rows of 1.8 to
-- 2.8 kB, and pglz was 5 % of PostgreSQL's CPU at 600 mutations/s. Disk is cheaper than that
-- CPU; a row over a page is still compressed and moved out of line.
ALTER TABLE "operations" SET (toast_tuple_target = 8160);
ALTER TABLE "receipts" SET (toast_tuple_target = 8160);
ALTER TABLE "events" SET (toast_tuple_target = 8160);
ALTER TABLE "idempotency_keys" SET (toast_tuple_target = 8160);
