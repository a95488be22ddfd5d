-- Each wallet's rows as one value in a key-value table: what a single wallet's reads (/traders/{wallet},
-- its curve, /positions/{wallet}) took from position_state and trader_days, and the ledger's progress
-- when they were read. Grouped from those tables per request, that statement cost the busiest wallet
-- of the 1M profiling store 39.8 ms p50 for its report and 31.4 for its positions, against 20.2 and 15.9
-- read by key here (docs/POSITIONS.md "Wallet snapshots by key"): most of a wallet read was the engine
-- planning the reads of those tables, not reading rows. The value is rebuilt from them by the
-- snapshot refresher (wallet-snapshots.ts) for every wallet the ledger wrote a row of: the view below
-- notes each in wallet_touches (kept a day), and the refresher reads the touches since its previous
-- run less an overlap, as the marks refresher does (touch-refresher.ts).
CREATE TABLE IF NOT EXISTS wallet_snapshots
(
    wallet        String,
    -- position_state per token, grouped (queries.ts POSITION_FIELDS): asset, market, outcome, outcome
    -- index, quantity and cost (micro-units, as text), opened and last change (ms), realized, bought,
    -- long-shot buys, volume (micro-units, as text), trades, USDC paid in (as text), first and last fill (ms).
    positions     Array(Tuple(String, String, String, Int16, String, String, Int64, Int64, String, String, String, String, Int64, String,
                              Nullable(Int64), Nullable(Int64))),
    -- trader_days per UTC day (queries.ts DAY_FIELDS): day (ms), realized, volume, trades, ledger rows.
    daily         Array(Tuple(Int64, String, String, String, String)),
    -- The markets of the positions (what market_marks is read for).
    markets       Array(String),
    -- ledger_progress read before the rows (queries.ts PROGRESS_PART): newest change's time, newest
    -- chain block, origins.
    as_of         Tuple(Int64, String, UInt32),
    refreshed_at  DateTime64(3, 'UTC')
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY wallet
SETTINGS optimize_for_bulk_insert = 0;

CREATE TABLE IF NOT EXISTS wallet_touches
(
    wallet      String,
    touched_at  DateTime64(3, 'UTC')
)
ENGINE = MergeTree
ORDER BY touched_at
TTL toDateTime(touched_at) + INTERVAL 1 DAY
SETTINGS auto_statistics_types = '';

-- The start of the refresher's newest run that wrote its wallets (one row, id 0).
CREATE TABLE IF NOT EXISTS wallet_snapshots_progress
(
    id        UInt8,
    since_ms  Int64
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;

-- Every change the ledger writes is a row of position_ledger (cancellations and replays included),
-- and position_state and trader_days are views of it.
CREATE MATERIALIZED VIEW IF NOT EXISTS wallet_touches_mv TO wallet_touches AS
SELECT DISTINCT wallet, now64(3) AS touched_at FROM position_ledger;

-- Every wallet already written: the refresher's first run builds them.
INSERT INTO wallet_touches (wallet, touched_at) SELECT DISTINCT wallet, now64(3) FROM position_state;
