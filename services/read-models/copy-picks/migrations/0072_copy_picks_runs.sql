-- One row per run of the copy-picks job, written even when the run found no candidate, so GET
-- /copy-picks can say when its list was computed, when the next run is due and why a list is empty
-- (a run that inserts no pick would otherwise leave no trace, and the previous run's picks would be served).
CREATE TABLE IF NOT EXISTS copy_picks_runs
(
    computed_at      DateTime64(3, 'UTC'),
    interval_ms      UInt64,
    topics           UInt32,
    candidates       UInt32,
    skipped_wallets  UInt32,
    picks            UInt32
)
ENGINE = MergeTree
ORDER BY computed_at
TTL toDateTime(computed_at) + INTERVAL 2 DAY;
