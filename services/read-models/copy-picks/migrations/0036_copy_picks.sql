-- Copy picks (services/read-models/copy-picks/): every run of the picks job inserts one row per
-- (window, topic, candidate leader) with the same computed_at; readers take the latest run of a
-- window. `excluded` names the rule that keeps a candidate out of the picks ('' = eligible);
-- min_resolved is applied when reading. Amounts of the copier simulation are exact decimal strings.
CREATE TABLE IF NOT EXISTS copy_picks
(
    window             LowCardinality(String),
    topic              String,
    wallet             String,
    score              Float64,
    excluded           LowCardinality(String),
    resolved           UInt32,
    realized_pnl_usdc  Float64,
    win_rate_pct       Nullable(Float64),
    won                UInt32,
    lost               UInt32,
    risk_score         Float64,
    last_fill_at       Nullable(DateTime64(3, 'UTC')),
    fills_in_window    UInt32,
    wash_share         Float64,
    copier_roi_pct     Float64,
    follower_pnl_usdc  String,
    invested_usdc      String,
    fees_usdc          String,
    slippage_usdc      String,
    copied_trades      UInt32,
    book_fills         UInt32,
    impact_fills       UInt32,
    order_usdc         String,
    delay_seconds      UInt32,
    open_positions     String,
    computed_at        DateTime64(3, 'UTC')
)
ENGINE = MergeTree
ORDER BY (window, computed_at, topic, wallet)
TTL toDateTime(computed_at) + INTERVAL 2 DAY;
