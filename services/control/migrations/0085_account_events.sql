-- The account-scoped events (copy.executed, risk.blocked, strategy.signal) as the `copy` and
-- `strategy` stream channels read them (services/copy/account-events.ts). Written by the copy engine
-- in the same transaction as the intents (or the strategy's deliveries), so a stream gets every event
-- exactly once whether or not the account has a webhook subscription. The id is the stream position:
-- writers take one advisory lock before inserting, so ids become visible in increasing order and a
-- reader at the highest visible id has missed nothing below it.
CREATE TABLE IF NOT EXISTS account_events
(
    id          BIGSERIAL PRIMARY KEY,
    account_id  BIGINT NOT NULL REFERENCES accounts (id),
    event_type  TEXT NOT NULL,
    -- The payload's id: a redelivered batch that decides the same event again inserts nothing.
    event_id    TEXT NOT NULL,
    market_id   TEXT NOT NULL,
    payload     JSONB NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS account_events_event_idx ON account_events (account_id, event_id);
CREATE INDEX IF NOT EXISTS account_events_account_idx ON account_events (account_id, id);
CREATE INDEX IF NOT EXISTS account_events_created_idx ON account_events (created_at);
-- The highest id retention deleted: a stream position at or below it is expired (410). Ids alone
-- cannot tell, since a rolled-back insert leaves a gap that is no deletion.
CREATE TABLE IF NOT EXISTS account_events_pruned
(
    singleton  BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    through    BIGINT NOT NULL
);
