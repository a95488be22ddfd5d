-- trader_daily and trader_totals (0042) are read per wallet - a leaderboard page's 50 wallets, one
-- wallet's /traders report - but kept the default 8,192-row granules, so 50 wallets read 50 granules:
-- 8,192 rows each for the few hundred wanted. With 256-row granules a wallet reads a few hundred rows.
-- index_granularity cannot be altered, so they are rebuilt under new names from
-- position_ledger itself, like position_state (0043): a rerun after a crash empties and rebuilds them.
CREATE TABLE IF NOT EXISTS trader_days
(
    wallet    String,
    day       Date,
    realized  SimpleAggregateFunction(sum, Int64),
    volume    SimpleAggregateFunction(sum, Int64),
    trades    SimpleAggregateFunction(sum, Int64)
)
ENGINE = AggregatingMergeTree
ORDER BY (wallet, day)
SETTINGS index_granularity = 256;

CREATE TABLE IF NOT EXISTS trader_lifetime
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
ORDER BY wallet
SETTINGS index_granularity = 256;

DROP VIEW IF EXISTS trader_daily_mv;

DROP VIEW IF EXISTS trader_totals_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_days_mv TO trader_days AS
SELECT wallet, toDate(time, 'UTC') AS day, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades
FROM position_ledger GROUP BY wallet, day;

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_lifetime_mv TO trader_lifetime AS
SELECT wallet, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       minIf(time, kind = 'fill') AS first_time, maxIf(time, kind = 'fill') AS last_time
FROM position_ledger GROUP BY wallet;

-- Migrations run before any consumer starts, so nothing is written to the ledger between these.
TRUNCATE TABLE trader_days;

INSERT INTO trader_days (wallet, day, realized, volume, trades)
SELECT wallet, toDate(time, 'UTC') AS day, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades
FROM position_ledger GROUP BY wallet, day;

TRUNCATE TABLE trader_lifetime;

INSERT INTO trader_lifetime (wallet, realized, volume, trades, bought_usdc, first_time, last_time)
SELECT wallet, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       minIf(time, kind = 'fill') AS first_time, maxIf(time, kind = 'fill') AS last_time
FROM position_ledger GROUP BY wallet;

DROP TABLE IF EXISTS trader_daily;

DROP TABLE IF EXISTS trader_totals;
