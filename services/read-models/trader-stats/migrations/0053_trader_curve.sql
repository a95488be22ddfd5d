-- The PnL curve's closed days, stored by the valuation pass (../valuation.ts, ../stored-curve.ts):
-- valuing a busy wallet's closed days reads every end-of-day state of its tokens and every daily close
-- of its markets, the largest part of a busy wallet's report. A stored curve is served only while what it was valued with is unchanged,
-- checked on every read from rows the report reads anyway:
-- - the wallet's ledger rows dated before the curve's "today": trader_days.changes (checked) and
--   position_daily.changes (stamped) count every ledger row (cancellations and replays included: rows
--   are only ever added) per (wallet, day), so a late or replayed change on any closed day raises the
--   sum, while today's fills do not touch it;
-- - per market held on a curve day, its daily closes before today and its settlement (marks);
-- - the curve's first day and today.
-- Otherwise the report values the closed days itself.
DROP VIEW IF EXISTS trader_days_mv;

ALTER TABLE trader_days ADD COLUMN IF NOT EXISTS changes SimpleAggregateFunction(sum, UInt64);

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_days_mv TO trader_days AS
SELECT wallet, toDate(time, 'UTC') AS day, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume,
       sum(toInt64(trades) * sign) AS trades, count() AS changes
FROM position_ledger GROUP BY wallet, day;

-- Existing rows would count 0 changes: rebuilt from position_ledger like 0044 (a rerun after a crash
-- empties and rebuilds it again; no ledger writes while migrations run).
TRUNCATE TABLE trader_days;

INSERT INTO trader_days (wallet, day, realized, volume, trades, changes)
SELECT wallet, toDate(time, 'UTC') AS day, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume,
       sum(toInt64(trades) * sign) AS trades, count() AS changes
FROM position_ledger GROUP BY wallet, day;

-- The same count per (wallet, day, token) in position_daily: a curve is stamped with the rows counted in
-- the same read as the states it was valued from (a view's rows reach each table in its own step).
DROP VIEW IF EXISTS position_daily_mv;

ALTER TABLE position_daily ADD COLUMN IF NOT EXISTS changes SimpleAggregateFunction(sum, UInt64);

CREATE MATERIALIZED VIEW IF NOT EXISTS position_daily_mv TO position_daily AS
SELECT wallet, toDate(time, 'UTC') AS day, asset_id, any(market_id) AS market_id, any(outcome_index) AS outcome_index,
       argMaxState((qty_after, cost_after), rev) AS state, count() AS changes
FROM position_ledger GROUP BY wallet, day, asset_id;

TRUNCATE TABLE position_daily;

INSERT INTO position_daily (wallet, day, asset_id, market_id, outcome_index, state, changes)
SELECT wallet, toDate(time, 'UTC') AS day, asset_id, any(market_id) AS market_id, any(outcome_index) AS outcome_index,
       argMaxState((qty_after, cost_after), rev) AS state, count() AS changes
FROM position_ledger GROUP BY wallet, day, asset_id;

-- One row per wallet, the newest valuation wins. unrealized[i] is day from_day + i (micro-USDC, 0 when
-- nothing held was valued), up to the day before to_day. rows_before: the wallet's ledger rows dated
-- before to_day when it was valued. markets / marks: the markets held on a curve day and the key of
-- their closes and settlement then (stored-curve.ts marksKey).
CREATE TABLE IF NOT EXISTS trader_curve
(
    wallet       String,
    from_day     Date,
    to_day       Date,
    unrealized   Array(Int64),
    rows_before  UInt64,
    markets      Array(String),
    marks        Array(String),
    valued_at    DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(valued_at)
ORDER BY wallet
SETTINGS index_granularity = 256;
