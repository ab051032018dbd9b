-- Room on each page for the new version of a row the hot paths update: an operation
-- is inserted open and updated once at completion (it roughly doubles in size); a
-- register's, TSE's, RKSV cash register's and RT device's counters move with every sale.
-- An update whose new version fits on the page and touches no indexed column is HOT: no
-- new index entries, and the old version is pruned without waiting for VACUUM.
ALTER TABLE "operations" SET (fillfactor = 50);
ALTER TABLE "registers" SET (fillfactor = 50);
ALTER TABLE "tse_devices" SET (fillfactor = 50);
ALTER TABLE "rksv_cash_registers" SET (fillfactor = 50);
ALTER TABLE "rt_devices" SET (fillfactor = 50);
