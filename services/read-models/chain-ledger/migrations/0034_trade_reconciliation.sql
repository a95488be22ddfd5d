-- Data API trades checked against chain taker fills per hour (same transaction, wallet, token and
-- size), recomputed by the reconciliation job for recent hours; read with FINAL.
CREATE TABLE IF NOT EXISTS trade_reconciliation
(
    hour         DateTime('UTC'),
    data_api     UInt64,
    matched      UInt64,
    unmatched    UInt64,
    chain_only   UInt64,
    computed_at  DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY hour;
