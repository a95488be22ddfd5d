-- A leaderboard page completes its 51 wallets from trader_valuation (leaderboard.ts pageFigures). With
-- the default 8,192-row granules 51 wallets touch nearly every granule, so the part read the whole
-- table for 51 of them. It gets 256-row granules and 4 KiB compressed blocks, as trader_lifetime and
-- trader_days have (0044, 0059); a ranking of every wallet reads the whole table either way.
-- index_granularity cannot be altered, so the rows are copied into a table that has it and the two are
-- exchanged (atomically). trader_valuation holds every row at each step, so a rerun after a crash
-- anywhere starts over from it: it first drops what an earlier run left (a partial copy, or after the
-- exchange the old table). Migrations run before the valuation pass starts, so nothing is written here
-- meanwhile.
DROP TABLE IF EXISTS trader_valuation_next;

CREATE TABLE trader_valuation_next AS trader_valuation
ENGINE = ReplacingMergeTree(valued_at)
ORDER BY wallet
SETTINGS index_granularity = 256, min_compress_block_size = 4096;

INSERT INTO trader_valuation_next SELECT * FROM trader_valuation;

EXCHANGE TABLES trader_valuation AND trader_valuation_next;

DROP TABLE trader_valuation_next;
