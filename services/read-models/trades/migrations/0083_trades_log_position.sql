-- Where each trade's event sat in the trades topic, for the same reason as chain_ledger's (0082): the
-- sink's insert writes trades and then its views (candles, closes) not as one transaction, and a
-- stored row at the position of a redelivered record is a leftover whose views' rows are rebuilt
-- (candles/rebuild.ts). -1: a row stored before these columns, or not through the log.
ALTER TABLE trades ADD COLUMN IF NOT EXISTS log_partition Int32 DEFAULT -1;
ALTER TABLE trades ADD COLUMN IF NOT EXISTS log_offset Int64 DEFAULT -1;
