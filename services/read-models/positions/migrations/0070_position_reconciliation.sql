-- Each tracked wallet's open positions as Polymarket's Data API lists them (wallet_positions, its
-- latest /positions snapshot) compared with the position ledger's (../upstream-reconciliation.ts);
-- one row per wallet and check, the newest check per wallet wins. Sizes and money in micro-units
-- (the Data API's floats rounded to the micro), so sums are exact.
CREATE TABLE IF NOT EXISTS position_reconciliation
(
    wallet                  String,
    snapshot_at             DateTime64(3, 'UTC'),
    checked_at              DateTime64(3, 'UTC'),
    ledger_as_of            Nullable(DateTime64(3, 'UTC')),
    compared                UInt32,
    matching                UInt32,
    size_mismatch           UInt32,
    only_upstream           UInt32,
    only_here               UInt32,
    changed_since           UInt32,
    size_drift_micro        UInt64,
    value_upstream_micro    Int64,
    value_here_micro        Int64,
    unrealized_upstream_micro Int64,
    unrealized_here_micro   Int64,
    realized_upstream_micro Int64,
    realized_here_micro     Int64,
    differences             Array(Tuple(asset_id String, market_id String, outcome String, upstream_micro Int64, here_micro Int64,
                                        upstream_avg_price Float64, here_avg_price Float64))
)
ENGINE = ReplacingMergeTree(checked_at)
ORDER BY wallet;
