-- ConditionResolution logs (topic tapeline.chain-resolutions.v1). A retraction (reorg) is the same
-- event again with retracted = true and a later ingested_at: read with FINAL and skip retracted rows.
CREATE TABLE IF NOT EXISTS chain_resolutions
(
    event_id              String,
    source                LowCardinality(String),
    chain_id              UInt32,
    block_number          UInt64,
    block_hash            String,
    block_time            DateTime64(3, 'UTC'),
    tx_hash               String,
    log_index             Int32,
    market_id             String,
    question_id           String,
    oracle                String,
    neg_risk_market_id    Nullable(String),
    outcome_slot_count    UInt16,
    payout_numerators     Array(String),
    payouts               Array(Float64),
    winning_outcome_index Int16,
    retracted             Bool,
    ingested_at           DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY (market_id, event_id)
SETTINGS non_replicated_deduplication_window = 1000;
