-- The 30-day boards' check without reading trader_recent_days' day total rows (../trader-window.ts).
-- Each board request compares today's stamp with the ledger rows dated on the window's closed days.
-- Read from trader_recent_days' day totals (wallet ''), that reads each part's first granule of every
-- day, 1,024 wallet rows each, for one row. Here the same counts are one row per day.
--
-- trader_window_counts: per UTC day, the ledger rows dated on it (the view, as trader_recent_days'
-- day totals), and on today's row the stamp (closed_changes, written by the valuation pass after
-- the closed-day sums it counts). The view and trader_recent_days' view run in one ledger insert,
-- so between them a reading can see a row counted here and not yet summed there, or the reverse:
-- the first stops the sums being served for that moment, and the second serves them as of before
-- that insert, as if the reading had come a moment earlier. Neither counts a row twice.
CREATE TABLE IF NOT EXISTS trader_window_counts
(
    day             Date,
    changes         SimpleAggregateFunction(sum, UInt64),
    closed_changes  SimpleAggregateFunction(sum, Int64)
)
ENGINE = AggregatingMergeTree
ORDER BY day
TTL day + INTERVAL 35 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_window_counts_mv TO trader_window_counts AS
SELECT toDate(time, 'UTC') AS day, count() AS changes
FROM position_ledger
WHERE time >= now64(3) - INTERVAL 35 DAY
GROUP BY day;

-- Filled from trader_recent_days' day totals, with the stamp 0056 kept there (a rerun after a crash
-- empties and fills it again; no ledger writes while migrations run).
TRUNCATE TABLE trader_window_counts;

INSERT INTO trader_window_counts (day, changes, closed_changes)
SELECT day, sum(changes), sum(closed_changes) FROM trader_recent_days WHERE wallet = '' GROUP BY day;
