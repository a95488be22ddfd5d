-- Key lifecycle: a key is live while revoked_at is NULL or still ahead (a rotated key keeps working
-- until the end of its grace period). last_used_at is written by the API's periodic usage flush.
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS label TEXT;
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS last_used_at TIMESTAMPTZ;
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS rotated_from BIGINT REFERENCES api_keys (id);
CREATE INDEX IF NOT EXISTS api_keys_account_idx ON api_keys (account_id, id);

-- Fixed-window counters shared by every API process (registrations per address and in total).
CREATE TABLE IF NOT EXISTS rate_windows (
    scope         TEXT NOT NULL,
    window_start  TIMESTAMPTZ NOT NULL,
    count         INTEGER NOT NULL,
    PRIMARY KEY (scope, window_start)
);

-- API processes announce themselves; per-key rate limits are split between the live ones.
CREATE TABLE IF NOT EXISTS api_instances (
    id          TEXT PRIMARY KEY,
    started_at  TIMESTAMPTZ NOT NULL,
    seen_at     TIMESTAMPTZ NOT NULL
);

-- Undelivered (pending) deliveries per subscription, kept by the outbox as deliveries enter and
-- leave that state, so the backlog cap costs one row per subscription instead of a count.
ALTER TABLE webhook_subscriptions ADD COLUMN IF NOT EXISTS pending_deliveries INTEGER NOT NULL DEFAULT 0;
UPDATE webhook_subscriptions s SET pending_deliveries = (SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending');

-- Events not enqueued for a subscription because its backlog of undelivered deliveries was full.
ALTER TABLE webhook_subscriptions ADD COLUMN IF NOT EXISTS dropped_events BIGINT NOT NULL DEFAULT 0;
ALTER TABLE webhook_subscriptions ADD COLUMN IF NOT EXISTS last_dropped_at TIMESTAMPTZ;

-- Retention: finished deliveries are purged by age.
CREATE INDEX IF NOT EXISTS webhook_deliveries_finished_idx ON webhook_deliveries (created_at) WHERE status <> 'pending';

-- The backlog cap counts a subscription's undelivered deliveries at every enqueue, and a claim reads
-- each subscription's oldest due ones: both by subscription, among pending deliveries only.
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_idx ON webhook_deliveries (subscription_id, next_attempt_at, seq) WHERE status = 'pending';

-- Deliveries in flight (leased) are counted per account and per host at every claim.
CREATE INDEX IF NOT EXISTS webhook_deliveries_leased_idx ON webhook_deliveries (lease_until) WHERE status = 'pending' AND lease_until IS NOT NULL;
