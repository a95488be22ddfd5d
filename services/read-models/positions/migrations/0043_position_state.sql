-- position_current (0041) read each ledger batch's states with point lookups on (wallet, token), but
-- with the default index granularity of 8,192 rows a batch of random keys touched almost every
-- granule, so each batch read the whole table and the ledger slowed with history (bench:scale:
-- 0.38 of a plain insert at 1M fills, 0.15 at 10M). The same table with 128-row granules reads one
-- granule per key. index_granularity cannot be altered, so the table is rebuilt under a new
-- name from position_ledger itself (the source of truth), which also makes a rerun of this file
-- after a crash halfway exact: the copy is emptied and rebuilt, never appended twice.
CREATE TABLE IF NOT EXISTS position_state
(
    wallet         String,
    asset_id       String,
    market_id      SimpleAggregateFunction(any, String),
    outcome        SimpleAggregateFunction(any, String),
    outcome_index  SimpleAggregateFunction(any, Int16),
    state          AggregateFunction(argMax, Tuple(UInt64, UInt64, DateTime64(3, 'UTC'), DateTime64(3, 'UTC'), UInt64, Int32, String), UInt64),
    max_rev        SimpleAggregateFunction(max, UInt64),
    realized       SimpleAggregateFunction(sum, Int64),
    bought_usdc    SimpleAggregateFunction(sum, Int64),
    longshot_usdc  SimpleAggregateFunction(sum, Int64),
    volume         SimpleAggregateFunction(sum, Int64),
    trades         SimpleAggregateFunction(sum, Int64),
    fees           SimpleAggregateFunction(sum, Int64),
    first_time     SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_time      SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    INDEX market_idx market_id TYPE bloom_filter GRANULARITY 4
)
ENGINE = AggregatingMergeTree
ORDER BY (wallet, asset_id)
SETTINGS index_granularity = 128;

DROP VIEW IF EXISTS position_current_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS position_state_mv TO position_state AS
SELECT wallet, asset_id, any(market_id) AS market_id, any(outcome) AS outcome, any(outcome_index) AS outcome_index,
       argMaxState((qty_after, cost_after, opened_at, time, block_number, log_index, event_id), rev) AS state,
       max(rev) AS max_rev,
       sum(realized * sign) AS realized,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy' AND price < 0.15) AS longshot_usdc,
       sum(toInt64(volume) * sign) AS volume,
       sum(toInt64(trades) * sign) AS trades,
       sum(toInt64(fee_micro) * sign) AS fees,
       min(time) AS first_time, max(time) AS last_time
FROM position_ledger GROUP BY wallet, asset_id;

-- Migrations run before any consumer starts, so nothing is written to the ledger between these two.
TRUNCATE TABLE position_state;

-- Columns named: 0052 adds columns (their defaults until it rebuilds the table).
INSERT INTO position_state (wallet, asset_id, market_id, outcome, outcome_index, state, max_rev, realized, bought_usdc, longshot_usdc,
                            volume, trades, fees, first_time, last_time)
SELECT wallet, asset_id, any(market_id) AS market_id, any(outcome) AS outcome, any(outcome_index) AS outcome_index,
       argMaxState((qty_after, cost_after, opened_at, time, block_number, log_index, event_id), rev) AS state,
       max(rev) AS max_rev,
       sum(realized * sign) AS realized,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy' AND price < 0.15) AS longshot_usdc,
       sum(toInt64(volume) * sign) AS volume,
       sum(toInt64(trades) * sign) AS trades,
       sum(toInt64(fee_micro) * sign) AS fees,
       min(time) AS first_time, max(time) AS last_time
FROM position_ledger GROUP BY wallet, asset_id;

DROP TABLE IF EXISTS position_current;
