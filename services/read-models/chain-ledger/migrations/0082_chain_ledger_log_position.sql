-- Where each row's event sat in the ledger topic. The sink's insert writes chain_ledger and then its
-- views (candles, closes, coverage), not as one transaction: a crash or a failed view between them
-- leaves rows the views never counted, and the redelivered batch finds them stored. A stored row at
-- the position of a redelivered record is such a leftover, and the views' rows it feeds are rebuilt
-- (retraction.ts); the same event at another position is a re-publication, counted already.
-- -1: a row stored before these columns, or not through the log.
ALTER TABLE chain_ledger ADD COLUMN IF NOT EXISTS log_partition Int32 DEFAULT -1;
ALTER TABLE chain_ledger ADD COLUMN IF NOT EXISTS log_offset Int64 DEFAULT -1;
