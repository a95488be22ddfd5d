-- Gamma events (groups of markets; topic tapeline.gamma-events.v1). Latest version per event; read with FINAL.
--   event_id (Gamma digit id), market_ids (condition ids of nested markets), series_ids, tag_ids,
--   volume/liquidity/open_interest in USDC, neg_risk + neg_risk_market_id for neg-risk groups.
CREATE TABLE IF NOT EXISTS gamma_events
(
    event_id            String,
    slug                String,
    title               String,
    category            LowCardinality(String),
    active              Bool,
    closed              Bool,
    archived            Bool,
    neg_risk            Bool,
    neg_risk_market_id  Nullable(String),
    start_date          Nullable(DateTime64(3, 'UTC')),
    end_date            Nullable(DateTime64(3, 'UTC')),
    closed_at           Nullable(DateTime64(3, 'UTC')),
    volume_usdc         Float64,
    volume_24h_usdc     Float64,
    liquidity_usdc      Float64,
    open_interest_usdc  Float64,
    market_ids          Array(String),
    series_ids          Array(String),
    tag_ids             Array(String),
    updated_at          DateTime64(3, 'UTC'),
    source              LowCardinality(String),
    ingested_at         DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY event_id
SETTINGS non_replicated_deduplication_window = 1000;
