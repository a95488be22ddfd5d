-- Market lifecycle transitions (topic tapeline.market-lifecycle.v1), one row per (market, revision).
-- The current state of a market is its highest revision. Read with FINAL (a re-run of the
-- lifecycle processor re-emits the same revisions).
--   kind: listed | closed | reopened | resolved | voided | confirmed | corrected
--   from_state / to_state: active | closed | resolved | voided (from_state null for the first row)
--   authority: gamma | clob-ws | clob-rest | chain; resolution_number 0 before settlement
--   payouts per outcome (0..1) once settled; final_yes_price = payouts[yes_index]
CREATE TABLE IF NOT EXISTS market_lifecycle
(
    market_id              String,
    revision               UInt32,
    kind                   LowCardinality(String),
    from_state             LowCardinality(Nullable(String)),
    to_state               LowCardinality(String),
    authority              LowCardinality(String),
    slug                   String,
    title                  String,
    outcomes               Array(String),
    yes_index              UInt8,
    resolution_number      UInt16,
    resolved_outcome       Nullable(String),
    winning_outcome_index  Int16,
    payouts                Array(Float64),
    final_yes_price        Nullable(Float64),
    final_no_price         Nullable(Float64),
    occurred_at            Nullable(DateTime64(3, 'UTC')),
    observed_at            DateTime64(3, 'UTC'),
    notify                 Bool,
    source                 LowCardinality(String)
)
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (market_id, revision)
SETTINGS non_replicated_deduplication_window = 1000;
