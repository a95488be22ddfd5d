-- trader_lifetime's first/last trade were minIf/maxIf(time, kind = 'fill') into non-Nullable columns:
-- the view aggregates each insert on its own, and an insert holding none of a wallet's fills (a batch
-- with only its redemption - the usual case, redemptions come days after the trades - or only splits
-- and merges) gave the type's default, 1970-01-01, which min() then kept for good: /traders served
-- first_trade_at 1970 for such wallets, and a wallet that never traded showed 1970 for both.
-- Nullable columns and minIf/maxIf over toNullable(time) give NULL for an insert without fills, which
-- min()/max() skip. The table is rebuilt from position_ledger like 0044 (a rerun after a crash drops
-- and rebuilds it again); like 0043/0044 it assumes no ledger writes while it runs: every part migrates
-- at start, so a deployment runs it before its ledger consumers resume.
DROP VIEW IF EXISTS trader_lifetime_mv;

DROP TABLE IF EXISTS trader_lifetime;

CREATE TABLE IF NOT EXISTS trader_lifetime
(
    wallet      String,
    realized    SimpleAggregateFunction(sum, Int64),
    volume      SimpleAggregateFunction(sum, Int64),
    trades      SimpleAggregateFunction(sum, Int64),
    bought_usdc SimpleAggregateFunction(sum, Int64),
    first_time  SimpleAggregateFunction(min, Nullable(DateTime64(3, 'UTC'))),
    last_time   SimpleAggregateFunction(max, Nullable(DateTime64(3, 'UTC')))
)
ENGINE = AggregatingMergeTree
ORDER BY wallet
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_lifetime_mv TO trader_lifetime AS
SELECT wallet, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       minIf(toNullable(time), kind = 'fill') AS first_time, maxIf(toNullable(time), kind = 'fill') AS last_time
FROM position_ledger GROUP BY wallet;

INSERT INTO trader_lifetime
SELECT wallet, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       minIf(toNullable(time), kind = 'fill') AS first_time, maxIf(toNullable(time), kind = 'fill') AS last_time
FROM position_ledger GROUP BY wallet;

-- The valuation pass copies the last trade; a wallet without fills has none (it stored 1970 too).
ALTER TABLE trader_valuation MODIFY COLUMN last_trade_at Nullable(DateTime64(3, 'UTC'));
