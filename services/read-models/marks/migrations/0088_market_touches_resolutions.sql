-- A market's marks also follow its resolution on chain (market-marks.ts values a market resolved on
-- chain at the chain's payout, before the catalog shows it): each resolution read, or retracted, touches it.
CREATE MATERIALIZED VIEW IF NOT EXISTS market_touches_resolutions_mv TO market_touches AS
SELECT DISTINCT market_id, now64(3) AS touched_at FROM chain_resolutions;

-- The markets already resolved on chain: the refresher's next run values them again.
INSERT INTO market_touches (market_id, touched_at)
SELECT DISTINCT market_id, now64(3) FROM chain_resolutions;
