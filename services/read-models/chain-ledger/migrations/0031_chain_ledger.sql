-- Every settlement event read from Polygon (topic tapeline.chain-ledger.v1), one row per event: fills
-- of both sides, splits, merges, redemptions, conversions, and block_retracted markers (kept as the
-- record of what a reorg took back; the rows they void are deleted, see ../retraction.ts).
-- Amounts are exact micro-units (UInt64: 18.4 trillion units; the decoder refuses anything larger).
-- The sink drops events already stored (same event id in the same block) before it inserts (the
-- candle views count every row they are handed); ReplacingMergeTree on the same key is the second
-- safety net. The block hash is part of the key: a reorg can put a transaction at the same log index
-- of a block with another hash, and the orphaned row must not merge into its replacement.
CREATE TABLE IF NOT EXISTS chain_ledger
(
    event_id          String,
    source            LowCardinality(String),
    kind              LowCardinality(String),
    chain_id          UInt32,
    block_number      UInt64,
    block_hash        String,
    block_time        DateTime64(3, 'UTC'),
    tx_hash           String,
    log_index         Int32,
    contract          LowCardinality(String),
    ledger_group      String,
    market_id         String,
    market_title      String,
    neg_risk          Bool,
    wallet            String,
    via               LowCardinality(String),
    role              LowCardinality(String),
    side              LowCardinality(String),
    asset_id          String,
    outcome           String,
    outcome_index     Int16,
    shares_micro      UInt64,
    usdc_micro        UInt64,
    fee_micro         UInt64,
    fee_asset         LowCardinality(String),
    price             Float64,
    yes_price         Float64,
    exchange_version  UInt8,
    order_hash        String,
    counterparty      String,
    amount_micro      UInt64,
    index_sets        Array(String),
    redeemed_micro    Array(UInt64),
    outcome_token_ids Array(String),
    collateral_token  LowCardinality(String),
    ingested_at       DateTime64(3, 'UTC'),
    INDEX wallet_idx wallet TYPE bloom_filter GRANULARITY 1,
    INDEX market_idx market_id TYPE bloom_filter GRANULARITY 1,
    INDEX tx_idx tx_hash TYPE bloom_filter GRANULARITY 1,
    INDEX event_idx event_id TYPE bloom_filter GRANULARITY 1,
    INDEX block_hash_idx block_hash TYPE bloom_filter GRANULARITY 1
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(block_time)
ORDER BY (block_time, block_number, log_index, event_id, block_hash)
SETTINGS non_replicated_deduplication_window = 1000;

-- Per-market tapes and per-wallet histories, in chain order, without scanning by time.
ALTER TABLE chain_ledger MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild';

ALTER TABLE chain_ledger ADD PROJECTION IF NOT EXISTS by_market (SELECT * ORDER BY market_id, block_time, block_number, log_index, event_id);

ALTER TABLE chain_ledger ADD PROJECTION IF NOT EXISTS by_wallet (SELECT * ORDER BY wallet, block_time, block_number, log_index, event_id);
