-- Fees, cash and cash paid per (wallet, day): a wallet's fees over 30 days (fees_paid_usdc), and its
-- capital at risk, which drawdown is measured against (../../trader-stats/trader-report.ts capitalAtRisk): the peak over
-- its days of the net cash invested at the day's start plus the cash it paid that day. Lifetime fees
-- per (wallet, token) are position_state.fees.
DROP VIEW IF EXISTS trader_days_mv;

ALTER TABLE trader_days ADD COLUMN IF NOT EXISTS fees SimpleAggregateFunction(sum, Int64);

ALTER TABLE trader_days ADD COLUMN IF NOT EXISTS cash SimpleAggregateFunction(sum, Int64);

ALTER TABLE trader_days ADD COLUMN IF NOT EXISTS paid SimpleAggregateFunction(sum, Int64);

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_days_mv TO trader_days AS
SELECT wallet, toDate(time, 'UTC') AS day, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume,
       sum(toInt64(trades) * sign) AS trades, count() AS changes, sum(toInt64(fee_micro) * sign) AS fees, sum(cash * sign) AS cash,
       sum(if(position_ledger.cash < 0, -position_ledger.cash, 0) * sign) AS paid
FROM position_ledger GROUP BY wallet, day;

-- Existing rows would hold 0 fees and cash: rebuilt from position_ledger like 0053 (a rerun after a
-- crash empties and rebuilds it again; no ledger writes while migrations run).
TRUNCATE TABLE trader_days;

INSERT INTO trader_days (wallet, day, realized, volume, trades, changes, fees, cash, paid)
SELECT wallet, toDate(time, 'UTC') AS day, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume,
       sum(toInt64(trades) * sign) AS trades, count() AS changes, sum(toInt64(fee_micro) * sign) AS fees, sum(cash * sign) AS cash,
       sum(if(position_ledger.cash < 0, -position_ledger.cash, 0) * sign) AS paid
FROM position_ledger GROUP BY wallet, day;

-- The snapshots carry the new fields (queries.ts POSITION_FIELDS, DAY_FIELDS): rebuilt, as on a new
-- store, by the refresher's first run (no stored start: every wallet).
DROP TABLE IF EXISTS wallet_snapshots;

DROP TABLE IF EXISTS wallet_snapshots_progress;

CREATE TABLE IF NOT EXISTS wallet_snapshots
(
    wallet        String,
    -- position_state per token, grouped (queries.ts POSITION_FIELDS): asset, market, outcome, outcome
    -- index, quantity and cost (micro-units, as text), opened and last change (ms), realized, bought,
    -- long-shot buys, volume (micro-units, as text), trades, USDC paid in (as text), first and last
    -- fill (ms), fees (micro-units, as text).
    positions     Array(Tuple(String, String, String, Int16, String, String, Int64, Int64, String, String, String, String, Int64, String,
                              Nullable(Int64), Nullable(Int64), String)),
    -- trader_days per UTC day (queries.ts DAY_FIELDS): day (ms), realized, volume, trades, ledger rows,
    -- fees, cash, cash paid.
    daily         Array(Tuple(Int64, String, String, String, String, String, String, String)),
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

CREATE TABLE IF NOT EXISTS wallet_snapshots_progress
(
    id        UInt8,
    since_ms  Int64
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;

-- trader_touches is written by the ledger once each insert has returned (ledger.ts touch), no longer
-- by a view inside the insert: a view's touch became visible before the insert's other views had
-- written their rows, so a snapshot rebuilt from it could miss the change while storing progress past
-- it (seen under load on the demo: a wallet served without a redemption for ten minutes, its
-- data_as_of after the redemption).
DROP VIEW IF EXISTS trader_touches_mv;
