-- The lifecycle processor's state per market (services/lifecycle/): where each market's state
-- machine stands, read and written in the same transaction as each batch of observations, so a
-- redelivered batch finds its transitions already applied.
CREATE TABLE IF NOT EXISTS market_lifecycle_states (
    market_id              TEXT PRIMARY KEY,
    source                 TEXT NOT NULL,
    state                  TEXT NOT NULL,
    revision               INTEGER NOT NULL,
    authority              TEXT NOT NULL,
    resolution_number      INTEGER NOT NULL,
    payouts                DOUBLE PRECISION[] NOT NULL,
    resolved_outcome       TEXT,
    winning_outcome_index  INTEGER NOT NULL,
    slug                   TEXT NOT NULL,
    title                  TEXT NOT NULL,
    outcomes               TEXT[] NOT NULL,
    yes_index              INTEGER NOT NULL,
    updated_at             TIMESTAMPTZ NOT NULL
);

-- When the lifecycle began watching (set once by the processor): a market first seen already
-- settled before this is catalog history and is recorded without notifying subscribers.
CREATE TABLE IF NOT EXISTS lifecycle_meta (
    id        BOOLEAN PRIMARY KEY DEFAULT true CHECK (id),
    epoch_ms  BIGINT NOT NULL
);

-- market.resolved now follows the lifecycle stream; the signals processor's own status table is gone.
DROP TABLE IF EXISTS signal_market_states;
