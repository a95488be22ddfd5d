-- Fees on the leaderboard: trader_lifetime gains each wallet's fees (USDC micro-units, as
-- position_ledger.fee_micro holds them since 0067), rebuilt from the ledger; the board pages and the
-- figures they are built from carry lifetime and 30-day fees.
DROP VIEW IF EXISTS trader_lifetime_mv;

ALTER TABLE trader_lifetime ADD COLUMN IF NOT EXISTS fees SimpleAggregateFunction(sum, Int64);

CREATE MATERIALIZED VIEW IF NOT EXISTS trader_lifetime_mv TO trader_lifetime AS
SELECT wallet, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       minIf(toNullable(time), kind = 'fill') AS first_time, maxIf(toNullable(time), kind = 'fill') AS last_time,
       sum(toInt64(fee_micro) * sign) AS fees
FROM position_ledger GROUP BY wallet;

TRUNCATE TABLE trader_lifetime;

INSERT INTO trader_lifetime (wallet, realized, volume, trades, bought_usdc, first_time, last_time, fees)
SELECT wallet, sum(realized * sign) AS realized, sum(toInt64(volume) * sign) AS volume, sum(toInt64(trades) * sign) AS trades,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       minIf(toNullable(time), kind = 'fill') AS first_time, maxIf(toNullable(time), kind = 'fill') AS last_time,
       sum(toInt64(fee_micro) * sign) AS fees
FROM position_ledger GROUP BY wallet;

ALTER TABLE leaderboard_figures_next ADD COLUMN IF NOT EXISTS fees Int64, ADD COLUMN IF NOT EXISTS fees_30d Int64;

ALTER TABLE leaderboard_pages ADD COLUMN IF NOT EXISTS fees Int64, ADD COLUMN IF NOT EXISTS fees_30d Int64;

ALTER TABLE leaderboard_pages_next ADD COLUMN IF NOT EXISTS fees Int64, ADD COLUMN IF NOT EXISTS fees_30d Int64;
