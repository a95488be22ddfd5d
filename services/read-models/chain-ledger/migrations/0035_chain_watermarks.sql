-- How far each partition of tapeline.chain-ledger.v1 is complete: the chain source sends a watermark
-- (block, time) to every partition after each range, after that range's events. The coverage's end is
-- the lowest of the partitions' latest watermarks: everything up to it is in chain_ledger.
CREATE TABLE IF NOT EXISTS chain_watermarks
(
    source       LowCardinality(String),
    ledger_group String,
    last_time    SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    last_block   SimpleAggregateFunction(max, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (source, ledger_group)
SETTINGS non_replicated_deduplication_window = 1000;
