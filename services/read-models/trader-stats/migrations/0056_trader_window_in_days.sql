-- The 30-day boards read one table in wallet order instead of hashing two (../trader-window.ts).
-- Adding today's trader_recent_days rows to a generation of trader_window with a GROUP BY over both
-- hashed every wallet on every request, even when none traded today; merging one sorted table with
-- FINAL does not.
--
-- The valuation pass writes the window's closed-day sums into today's rows of trader_recent_days
-- itself (closed_*), so today's (day, wallet) rows hold both parts and `FINAL` on today's key range
-- merges them per wallet in order. The pass adds the difference between the closed days' sums now
-- and what today's rows already hold (it is the only writer of these columns; the view leaves them 0),
-- then adds to today's day total row (wallet '') the difference that makes its closed_changes the sum
-- of every wallet's: the stamp, compared with the closed days' row count as before.
ALTER TABLE trader_recent_days
    ADD COLUMN IF NOT EXISTS closed_realized SimpleAggregateFunction(sum, Int64) DEFAULT 0,
    ADD COLUMN IF NOT EXISTS closed_volume   SimpleAggregateFunction(sum, Int64) DEFAULT 0,
    ADD COLUMN IF NOT EXISTS closed_changes  SimpleAggregateFunction(sum, Int64) DEFAULT 0;

DROP TABLE IF EXISTS trader_window;
