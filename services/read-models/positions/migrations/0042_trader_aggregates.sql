-- Per-wallet figures kept by views over position_ledger (sums of value x sign, so a rewind's
-- cancelled rows drop out). Categories are joined from markets when read, so a market whose
-- category changes moves its figures with it.

-- Per (wallet, market): realized PnL, volume (USDC of the wallet's fills, both roles), fills, and the
-- cost the wallet ever paid in (0: it never had a cost basis there, so the market is neither won nor lost).
CREATE TABLE IF NOT EXISTS trader_market_pnl
(
    wallet      String,
    market_id   String,
    realized    SimpleAggregateFunction(sum, Int64),
    volume      SimpleAggregateFunction(sum, Int64),
    trades      SimpleAggregateFunction(sum, Int64),
    cost_in     SimpleAggregateFunction(sum, Int64),
    first_time  SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_time   SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (wallet, market_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_market_pnl_mv TO trader_market_pnl AS
SELECT wallet, market_id, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades,
       sumIf(toInt64(in_usdc) * sign, action = 'buy') AS cost_in, min(time) AS first_time, max(time) AS last_time
FROM position_ledger GROUP BY wallet, market_id;

-- Per (wallet, UTC day): the realized part of the daily PnL curve and the 30-day windows.
CREATE TABLE IF NOT EXISTS trader_daily
(
    wallet    String,
    day       Date,
    realized  SimpleAggregateFunction(sum, Int64),
    volume    SimpleAggregateFunction(sum, Int64),
    trades    SimpleAggregateFunction(sum, Int64)
)
ENGINE = AggregatingMergeTree
ORDER BY (wallet, day);

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_daily_mv TO trader_daily AS
SELECT wallet, toDate(time, 'UTC') AS day, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades
FROM position_ledger GROUP BY wallet, day;

-- Per wallet, lifetime: the leaderboard's realized PnL, volume and fills without touching history.
CREATE TABLE IF NOT EXISTS trader_totals
(
    wallet      String,
    realized    SimpleAggregateFunction(sum, Int64),
    volume      SimpleAggregateFunction(sum, Int64),
    trades      SimpleAggregateFunction(sum, Int64),
    bought_usdc SimpleAggregateFunction(sum, Int64),
    first_time  SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_time   SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY wallet;

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_totals_mv TO trader_totals AS
SELECT wallet, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       minIf(time, kind = 'fill') AS first_time, maxIf(time, kind = 'fill') AS last_time
FROM position_ledger GROUP BY wallet;

-- End-of-day state of each (wallet, token) on the days it changed: the daily curve's positions.
CREATE TABLE IF NOT EXISTS position_daily
(
    wallet     String,
    day        Date,
    asset_id   String,
    market_id  SimpleAggregateFunction(any, String),
    outcome_index SimpleAggregateFunction(any, Int16),
    state      AggregateFunction(argMax, Tuple(UInt64, UInt64), UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (wallet, day, asset_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS position_daily_mv TO position_daily AS
SELECT wallet, toDate(time, 'UTC') AS day, asset_id, any(market_id) AS market_id, any(outcome_index) AS outcome_index,
       argMaxState((qty_after, cost_after), rev) AS state
FROM position_ledger GROUP BY wallet, day, asset_id;

-- How far the ledger has applied the log: the newest change's block and time (data_as_of).
CREATE TABLE IF NOT EXISTS ledger_progress
(
    origin      LowCardinality(String),
    last_time   SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    last_block  SimpleAggregateFunction(max, UInt64),
    applied_at  SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY origin;

CREATE MATERIALIZED VIEW IF NOT EXISTS ledger_progress_mv TO ledger_progress AS
SELECT origin, max(time) AS last_time, max(block_number) AS last_block, max(ingested_at) AS applied_at FROM position_ledger GROUP BY origin;

-- Valuation at current marks (unrealized PnL, won/lost, risk) of wallets whose positions or marks
-- changed, refreshed by the valuation pass (../../trader-stats/valuation.ts); the latest per wallet wins.
CREATE TABLE IF NOT EXISTS trader_valuation
(
    wallet          String,
    realized        Int64,
    unrealized      Int64,
    total_pnl       Int64,
    volume          Int64,
    trades          Int64,
    won             UInt32,
    lost            UInt32,
    win_rate_pct    Nullable(Float64),
    risk_score      Float64,
    last_trade_at   DateTime64(3, 'UTC'),
    valued_at       DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(valued_at)
ORDER BY wallet;

DROP TABLE IF EXISTS trader_stats;

DROP TABLE IF EXISTS trader_category_stats;

-- Per-category valuation of each wallet, written with trader_valuation (category boards).
CREATE TABLE IF NOT EXISTS trader_category_valuation
(
    wallet        String,
    category      LowCardinality(String),
    realized      Int64,
    unrealized    Int64,
    total_pnl     Int64,
    volume        Int64,
    won           UInt32,
    lost          UInt32,
    win_rate_pct  Nullable(Float64),
    valued_at     DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(valued_at)
ORDER BY (category, wallet);

-- Which wallets and markets the ledger changed when: the valuation pass revalues only those (and the
-- holders of markets whose marks moved), so its cost follows the changes, not the history.
CREATE TABLE IF NOT EXISTS trader_touches
(
    touched_at  DateTime64(3, 'UTC'),
    wallet      String,
    market_id   String
)
ENGINE = MergeTree
ORDER BY (touched_at, wallet)
TTL toDateTime(touched_at) + INTERVAL 2 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_touches_mv TO trader_touches AS
SELECT max(ingested_at) AS touched_at, wallet, market_id FROM position_ledger GROUP BY wallet, market_id;
