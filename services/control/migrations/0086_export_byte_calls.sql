-- The calls an export's bytes were charged (one per started EXPORT_BYTES_PER_CALL of its files),
-- marked before the meter charges them, so a job resumed after a stop is never charged twice.
ALTER TABLE export_jobs ADD COLUMN IF NOT EXISTS byte_calls INTEGER NOT NULL DEFAULT 0;
