-- Why a tracked wallet's positions differ from Polymarket's (../upstream-reconciliation.ts): each
-- check keeps the ledger's progress and the coverage it was judged against, a reason per difference
-- ('' = none known, aligned with `differences`), the differing tokens counted by reason, and the
-- wallet's status. Checks stored before this gave no reasons: their defaults read every difference
-- as unexplained, so an old drift stays a drift.
ALTER TABLE position_reconciliation
    ADD COLUMN IF NOT EXISTS ledger_to_block Nullable(UInt64),
    ADD COLUMN IF NOT EXISTS ledger_to_time Nullable(DateTime64(3, 'UTC')),
    ADD COLUMN IF NOT EXISTS coverage_from_time Nullable(DateTime64(3, 'UTC')),
    ADD COLUMN IF NOT EXISTS coverage_complete Bool DEFAULT false,
    ADD COLUMN IF NOT EXISTS ledger_behind UInt32 DEFAULT 0,
    ADD COLUMN IF NOT EXISTS history_not_covered UInt32 DEFAULT 0,
    ADD COLUMN IF NOT EXISTS unexplained UInt32 DEFAULT size_mismatch + only_upstream + only_here,
    ADD COLUMN IF NOT EXISTS status LowCardinality(String) DEFAULT if(size_mismatch + only_upstream + only_here = 0, 'match', 'drift'),
    ADD COLUMN IF NOT EXISTS difference_reasons Array(LowCardinality(String)) DEFAULT arrayMap(d -> '', differences);
