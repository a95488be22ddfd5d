-- Per-wallet statistics, recomputed by the trader-stats job (services/traders/stats-job.ts) from
-- trades with weighted-average-cost accounting; read by /leaderboard and /traders/browse.
-- ReplacingMergeTree keeps the latest computation per wallet; readers use FINAL.
CREATE TABLE IF NOT EXISTS trader_stats
(
    wallet             String,
    realized_pnl       Float64,
    unrealized_pnl     Float64,
    total_pnl          Float64,
    realized_pnl_30d   Float64,
    volume_usdc        Float64,
    volume_30d_usdc    Float64,
    trades             UInt64,
    trades_30d         UInt64,
    markets_traded     UInt32,
    won                UInt32,
    lost               UInt32,
    win_rate_pct       Nullable(Float64),
    risk_score         Float64,
    last_trade_at      DateTime64(3, 'UTC'),
    computed_at        DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY wallet;

-- The same figures per market category, for category leaderboards.
CREATE TABLE IF NOT EXISTS trader_category_stats
(
    wallet          String,
    category        LowCardinality(String),
    realized_pnl    Float64,
    unrealized_pnl  Float64,
    total_pnl       Float64,
    volume_usdc     Float64,
    won             UInt32,
    lost            UInt32,
    win_rate_pct    Nullable(Float64),
    computed_at     DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (category, wallet);
