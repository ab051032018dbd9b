-- Pipelined writes (src/db/sql.ts) are not read back, so a write that must change a
-- row fails through this instead: its transaction, COMMIT included, rolls back.
CREATE FUNCTION assert_written(written boolean, reason text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT written THEN
    RAISE EXCEPTION USING ERRCODE = 'FS001', MESSAGE = reason;
  END IF;
  RETURN true;
END
$$;
