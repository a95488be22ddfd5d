-- How far the ledger has applied each partition of the chain ledger topic: the newest watermark
-- (the chain source's "everything up to this block is published", sent to every partition after each
-- range it reads) among the batches the ledger applied, keyed by the watermark's ledger_group (one key
-- per partition). The lowest over every partition is the block up to which the ledger holds every chain
-- change, whatever order it applied the partitions in: data_as_of (queries.ts, PROGRESS_TUPLE).
CREATE TABLE IF NOT EXISTS ledger_watermarks
(
    ledger_group String,
    block_number SimpleAggregateFunction(max, UInt64),
    block_time   SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY ledger_group;
