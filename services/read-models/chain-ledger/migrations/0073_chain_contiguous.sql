-- What the service's follower states on each watermark about its coverage (the watermark's
-- `coverage`, docs/CHAIN.md "Coverage"): from which block it has read every block up to the
-- watermark without a hole, and where the configured contracts' history starts. One row per
-- partition key, the newest watermark's statement kept (a follower restarted without its checkpoint
-- states a later first block, and that is the truth from then on). Backfills' watermarks state
-- nothing: their ranges count once the follower's checkpoint joins them.
CREATE TABLE IF NOT EXISTS chain_contiguous
(
    source              LowCardinality(String),
    ledger_group        String,
    from_block          UInt64,
    from_time           DateTime64(3, 'UTC'),
    history_start_block UInt64,
    last_block          UInt64,
    last_time           DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(last_block)
ORDER BY (source, ledger_group);
