-- The 30-day leaderboards (window=30d, by realized PnL or volume) without summing every wallet's days on
-- every request (../trader-window.ts). Summing trader_days over the window read every (wallet, day) row:
-- 2.6M rows at 10M bench fills against 1M at 1M, so the board slowed with activity (bench:scale
-- leaderboard_30d 10M/1M 1.35). Now the valuation pass sums the window's closed days once per wallet
-- (trader_window) and a request adds today's rows to them, while the closed days are what was summed.
--
-- trader_recent_days: trader_days' figures for the last 35 days, ordered by day so a day range (today,
-- or the window) is a primary-key range, plus one row per day with wallet '' (the GROUPING SETS total)
-- counting the ledger rows of that day. Each insert block of the view writes its wallet rows and its
-- day totals into the same part, so the day totals read at any moment count exactly the wallet rows
-- visible then: the check below compares two readings of one table, never two tables that a view
-- writes in separate steps. Rows older than 35 days are not kept (the window is 30).
CREATE TABLE IF NOT EXISTS trader_recent_days
(
    day       Date,
    wallet    String,
    realized  SimpleAggregateFunction(sum, Int64),
    volume    SimpleAggregateFunction(sum, Int64),
    changes   SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (day, wallet)
TTL day + INTERVAL 35 DAY
SETTINGS index_granularity = 1024;

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_recent_days_mv TO trader_recent_days AS
SELECT toDate(time, 'UTC') AS day, wallet, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, count() AS changes
FROM position_ledger
WHERE time >= now64(3) - INTERVAL 35 DAY
GROUP BY GROUPING SETS ((day, wallet), (day));

-- Filled from position_ledger (a rerun after a crash empties and fills it again; no ledger writes
-- while migrations run).
TRUNCATE TABLE trader_recent_days;

INSERT INTO trader_recent_days (day, wallet, realized, volume, changes)
SELECT toDate(time, 'UTC') AS day, wallet, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, count() AS changes
FROM position_ledger
WHERE time >= now64(3) - INTERVAL 35 DAY
GROUP BY GROUPING SETS ((day, wallet), (day));

-- One generation of the window's closed days per summing: per wallet, the sums of its days from the
-- window's first day up to the day before to_day, and the ledger rows they sum (changes). Its stamp is
-- a row of its own with wallet '' (to_day, and the changes of all its rows), written after them, so a
-- stamp names only a complete generation, and dropping the generation's partition drops its stamp too.
CREATE TABLE IF NOT EXISTS trader_window
(
    generation  UInt64,
    to_day      Date,
    wallet      String,
    realized    Int64,
    volume      Int64,
    changes     UInt64
)
ENGINE = MergeTree
PARTITION BY generation
ORDER BY wallet
SETTINGS index_granularity = 1024;
