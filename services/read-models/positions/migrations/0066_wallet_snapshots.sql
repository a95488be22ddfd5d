-- Each wallet's rows as one value in a key-value table: what a single wallet's reads (/traders/{wallet},
-- its curve, /positions/{wallet}) took from position_state and trader_days, and the ledger's progress
-- when they were read (docs/POSITIONS.md "Wallet snapshots by key"): most of a wallet read grouped from
-- those tables per request is the engine planning the reads, not reading rows. The value is rebuilt from them by the
-- snapshot refresher (wallet-snapshots.ts) for every wallet the ledger wrote a row of: the ledger's
-- view already notes each in trader_touches (0042, kept two days), and the refresher reads the touches
-- since its previous run less an overlap, as the marks refresher does (read-models/touch-refresher.ts). Its first
-- run on a store builds every wallet.
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

-- The start of the refresher's newest run that wrote its wallets (one row, id 0).
CREATE TABLE IF NOT EXISTS wallet_snapshots_progress
(
    id        UInt8,
    since_ms  Int64
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;
