-- Where a restarted valuation pass (../valuation.ts) collects the changed wallets from (one row, id 0):
-- the start of the oldest collection with a wallet not valued yet, or the end of the last one once all
-- it found were valued. Written after every chunk, so a pass stopped between chunks loses no wallet
-- (the newest valued_at, read before this table, is past the wallets a cut pass left waiting).
CREATE TABLE IF NOT EXISTS trader_valuation_progress
(
    id        UInt8,
    since_ms  Int64
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;
