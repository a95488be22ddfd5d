-- A wallet's report read trader_lifetime (totals) and trader_market_pnl (per-market rows and the
-- wallet's market ids) besides position_state, and on chDB every table read costs its planning before
-- it reads anything. Both are sums of position_state's rows
-- (every ledger row has its wallet, token and market) except two figures it lacked: the USDC paid in
-- by buys of any kind (splits included: a market where the wallet never had a cost basis is neither
-- won nor lost) and the first/last fill (Nullable as in 0051: NULL for an insert without fills).
-- Existing rows would read 0/NULL for the new columns, so position_state is rebuilt from
-- position_ledger like 0043 (a rerun after a crash empties and rebuilds it again); like 0043 it
-- assumes no ledger writes while it runs (every part migrates at start, before its consumers resume).
DROP VIEW IF EXISTS position_state_mv;

ALTER TABLE position_state
    ADD COLUMN IF NOT EXISTS cost_in SimpleAggregateFunction(sum, Int64),
    ADD COLUMN IF NOT EXISTS fill_first SimpleAggregateFunction(min, Nullable(DateTime64(3, 'UTC'))),
    ADD COLUMN IF NOT EXISTS fill_last SimpleAggregateFunction(max, Nullable(DateTime64(3, 'UTC')));

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
       min(time) AS first_time, max(time) AS last_time,
       sumIf(toInt64(in_usdc) * sign, action = 'buy') AS cost_in,
       minIf(toNullable(time), kind = 'fill') AS fill_first, maxIf(toNullable(time), kind = 'fill') AS fill_last
FROM position_ledger GROUP BY wallet, asset_id;

TRUNCATE TABLE position_state;

INSERT INTO position_state (wallet, asset_id, market_id, outcome, outcome_index, state, max_rev, realized, bought_usdc, longshot_usdc,
                            volume, trades, fees, first_time, last_time, cost_in, fill_first, fill_last)
SELECT wallet, asset_id, any(market_id) AS market_id, any(outcome) AS outcome, any(outcome_index) AS outcome_index,
       argMaxState((qty_after, cost_after, opened_at, time, block_number, log_index, event_id), rev) AS state,
       max(rev) AS max_rev,
       sum(realized * sign) AS realized,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy' AND price < 0.15) AS longshot_usdc,
       sum(toInt64(volume) * sign) AS volume,
       sum(toInt64(trades) * sign) AS trades,
       sum(toInt64(fee_micro) * sign) AS fees,
       min(time) AS first_time, max(time) AS last_time,
       sumIf(toInt64(in_usdc) * sign, action = 'buy') AS cost_in,
       minIf(toNullable(time), kind = 'fill') AS fill_first, maxIf(toNullable(time), kind = 'fill') AS fill_last
FROM position_ledger GROUP BY wallet, asset_id;
