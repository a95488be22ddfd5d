-- OHLCV of the YES price from on-chain taker fills (one per match), at 5m / 1h / 1d aligned to UTC.
-- open/close are argMin/argMax by (block_number, log_index): the chain's own order, exact within a
-- second. Volumes are exact sums of micro-units. The views add rows as they arrive; a reorg's
-- retraction rebuilds the buckets it touched from chain_ledger (../retraction.ts), since an aggregate
-- cannot subtract a high or a low.
CREATE TABLE IF NOT EXISTS chain_candles_5m
(
    market_id          String,
    bucket             DateTime('UTC'),
    open               AggregateFunction(argMin, Float64, Tuple(UInt64, Int32)),
    high               SimpleAggregateFunction(max, Float64),
    low                SimpleAggregateFunction(min, Float64),
    close              AggregateFunction(argMax, Float64, Tuple(UInt64, Int32)),
    volume_usdc_micro  SimpleAggregateFunction(sum, UInt64),
    volume_shares_micro SimpleAggregateFunction(sum, UInt64),
    trade_count        SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (market_id, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS chain_candles_5m_mv TO chain_candles_5m AS
SELECT market_id, toStartOfFiveMinutes(block_time) AS bucket,
       argMinState(yes_price, (block_number, log_index)) AS open, max(yes_price) AS high, min(yes_price) AS low,
       argMaxState(yes_price, (block_number, log_index)) AS close,
       sum(usdc_micro) AS volume_usdc_micro, sum(shares_micro) AS volume_shares_micro, count() AS trade_count
FROM chain_ledger WHERE kind = 'fill' AND role = 'taker'
GROUP BY market_id, bucket;

CREATE TABLE IF NOT EXISTS chain_candles_1h AS chain_candles_5m
ENGINE = AggregatingMergeTree
ORDER BY (market_id, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS chain_candles_1h_mv TO chain_candles_1h AS
SELECT market_id, toStartOfHour(block_time) AS bucket,
       argMinState(yes_price, (block_number, log_index)) AS open, max(yes_price) AS high, min(yes_price) AS low,
       argMaxState(yes_price, (block_number, log_index)) AS close,
       sum(usdc_micro) AS volume_usdc_micro, sum(shares_micro) AS volume_shares_micro, count() AS trade_count
FROM chain_ledger WHERE kind = 'fill' AND role = 'taker'
GROUP BY market_id, bucket;

CREATE TABLE IF NOT EXISTS chain_candles_1d AS chain_candles_5m
ENGINE = AggregatingMergeTree
ORDER BY (market_id, bucket)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS chain_candles_1d_mv TO chain_candles_1d AS
SELECT market_id, toStartOfDay(block_time) AS bucket,
       argMinState(yes_price, (block_number, log_index)) AS open, max(yes_price) AS high, min(yes_price) AS low,
       argMaxState(yes_price, (block_number, log_index)) AS close,
       sum(usdc_micro) AS volume_usdc_micro, sum(shares_micro) AS volume_shares_micro, count() AS trade_count
FROM chain_ledger WHERE kind = 'fill' AND role = 'taker'
GROUP BY market_id, bucket;

-- The block-time span the chain source has published (its coverage): the trades feed and candles
-- serve chain fills inside it and the Data API fast path outside it (docs/CHAIN.md).
CREATE TABLE IF NOT EXISTS chain_coverage
(
    source      LowCardinality(String),
    first_time  SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_time   SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    first_block SimpleAggregateFunction(min, UInt64),
    last_block  SimpleAggregateFunction(max, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY source
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS chain_coverage_mv TO chain_coverage AS
SELECT source, min(block_time) AS first_time, max(block_time) AS last_time, min(block_number) AS first_block, max(block_number) AS last_block
FROM chain_ledger GROUP BY source;
