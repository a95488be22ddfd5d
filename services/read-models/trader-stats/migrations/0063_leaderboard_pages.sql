-- The boards without a category, built as pages (board-pages.ts): every wallet's row of each board in
-- rank order, with every figure an entry shows, so a page is one read of a key range in key order
-- instead of ranking every wallet and then completing the page's wallets from three tables
-- (docs/POSITIONS.md "Board pages"). A build
-- fills leaderboard_pages_next and exchanges the two tables (atomically): a read sees one whole build.
CREATE TABLE IF NOT EXISTS leaderboard_pages
(
    board        LowCardinality(String),
    rank         UInt32,
    wallet       String,
    sort_value   Float64,
    realized     Int64,
    unrealized   Int64,
    volume       Int64,
    trades       Int64,
    in_lifetime  UInt8,
    won          Int64,
    lost         Int64,
    win_rate_pct Nullable(Float64),
    risk_score   Nullable(Float64),
    valued       UInt8,
    valued_ms    Nullable(Int64),
    realized_30d Int64,
    volume_30d   Int64,
    last_ms      Nullable(Int64),
    built_ms     Int64,
    data_ms      Int64
)
ENGINE = MergeTree
ORDER BY (board, rank)
SETTINGS index_granularity = 256, min_compress_block_size = 4096;

CREATE TABLE IF NOT EXISTS leaderboard_pages_next AS leaderboard_pages;

-- Every figure of each wallet once per build, with what each board ranks by and whether the wallet is
-- on it: each board's rows are then this table's rows ranked, without a join.
CREATE TABLE IF NOT EXISTS leaderboard_figures_next
(
    wallet       String,
    valued_total Int64,
    in_window    UInt8,
    window_realized Int64,
    window_volume Int64,
    realized     Int64,
    unrealized   Int64,
    volume       Int64,
    trades       Int64,
    in_lifetime  UInt8,
    won          Int64,
    lost         Int64,
    win_rate_pct Nullable(Float64),
    risk_score   Nullable(Float64),
    valued       UInt8,
    valued_ms    Nullable(Int64),
    realized_30d Int64,
    volume_30d   Int64,
    last_ms      Nullable(Int64)
)
ENGINE = MergeTree
ORDER BY wallet;
