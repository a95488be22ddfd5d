-- 1d OHLCV candles of the YES price, aligned to UTC, built from taker fills as they arrive.
-- open/close are argMin/argMax by trade time so out-of-order inserts still give the right values.
-- The target carries the dedup window and the sink inserts with
-- deduplicate_blocks_in_dependent_materialized_views = 1, so a retried batch is not counted twice.
CREATE TABLE IF NOT EXISTS candles_1d
(
    market_id    String,
    bucket       DateTime('UTC'),
    open         AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
    high         SimpleAggregateFunction(max, Float64),
    low          SimpleAggregateFunction(min, Float64),
    close        AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
    volume_usdc  SimpleAggregateFunction(sum, Float64),
    volume_shares SimpleAggregateFunction(sum, Float64),
    trade_count  SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (market_id, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1d_mv TO candles_1d AS
SELECT
    market_id,
    toStartOfDay(ts) AS bucket,
    argMinState(yes_price, ts) AS open,
    max(yes_price) AS high,
    min(yes_price) AS low,
    argMaxState(yes_price, ts) AS close,
    sum(size_usdc) AS volume_usdc,
    sum(size) AS volume_shares,
    count() AS trade_count
FROM trades
GROUP BY market_id, bucket;
