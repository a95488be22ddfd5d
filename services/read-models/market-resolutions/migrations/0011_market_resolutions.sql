-- One row per resolved market (topic tapeline.market-resolutions.v1). Read with FINAL.
--   market_id (condition id), winning_outcome (null = split payout), winning_outcome_index (-1 = none),
--   winning_asset_id, payouts (per outcome, 0..1), resolved_at, origin (gamma | clob-ws | clob-rest).
CREATE TABLE IF NOT EXISTS market_resolutions
(
    market_id              String,
    gamma_id               String,
    slug                   String,
    title                  String,
    outcomes               Array(String),
    outcome_token_ids      Array(String),
    winning_outcome        Nullable(String),
    winning_outcome_index  Int16,
    winning_asset_id       Nullable(String),
    payouts                Array(Float64),
    resolved_at            Nullable(DateTime64(3, 'UTC')),
    origin                 LowCardinality(String),
    source                 LowCardinality(String),
    ingested_at            DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY market_id
SETTINGS non_replicated_deduplication_window = 1000;
