-- Webhook subscriptions, scoped to the account that owns the API key. The signing secret is stored
-- as is (unlike API keys, which keep only a hash) because the dispatcher must sign with it; after a
-- rotation the previous secret keeps signing alongside until previous_secret_expires_at.
CREATE TABLE IF NOT EXISTS webhook_subscriptions (
    id                          BIGSERIAL PRIMARY KEY,
    account_id                  BIGINT NOT NULL REFERENCES accounts (id),
    url                         TEXT NOT NULL,
    events                      TEXT[] NOT NULL,
    filters                     JSONB NOT NULL DEFAULT '{}'::jsonb,
    secret                      TEXT NOT NULL,
    previous_secret             TEXT,
    previous_secret_expires_at  TIMESTAMPTZ,
    enabled                     BOOLEAN NOT NULL DEFAULT true,
    disabled_reason             TEXT,
    disabled_at                 TIMESTAMPTZ,
    -- First failed attempt since the last success; sustained failure past a limit disables.
    failing_since               TIMESTAMPTZ,
    created_at                  TIMESTAMPTZ NOT NULL,
    updated_at                  TIMESTAMPTZ NOT NULL
);

CREATE INDEX IF NOT EXISTS webhook_subscriptions_account_idx ON webhook_subscriptions (account_id, id);

-- The durable outbox: one row per (subscription, event), inserted before the signals processor
-- commits its log offsets, so an event is never lost between detection and delivery. The body is
-- stored as the exact bytes to send; it is signed again at every attempt.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    seq               BIGSERIAL PRIMARY KEY,
    id                TEXT NOT NULL UNIQUE,
    subscription_id   BIGINT NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
    event_id          TEXT NOT NULL,
    event_type        TEXT NOT NULL,
    body              TEXT NOT NULL,
    -- pending: waiting for its next attempt; succeeded: a 2xx arrived; failed: attempts exhausted,
    -- 410 Gone, or the subscription was disabled by sustained failure.
    status            TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts          INTEGER NOT NULL DEFAULT 0,
    next_attempt_at   TIMESTAMPTZ NOT NULL,
    -- A dispatcher owns a claimed delivery until lease_until; a killed dispatcher's lease runs out
    -- and another (or the restarted one) picks the delivery up again.
    lease_until       TIMESTAMPTZ,
    last_status_code  INTEGER,
    last_error        TEXT,
    created_at        TIMESTAMPTZ NOT NULL,
    delivered_at      TIMESTAMPTZ,
    UNIQUE (subscription_id, event_id)
);

CREATE INDEX IF NOT EXISTS webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, seq);

-- The delivery log the subscriber reads: one row per HTTP attempt.
CREATE TABLE IF NOT EXISTS webhook_attempts (
    id            BIGSERIAL PRIMARY KEY,
    delivery_seq  BIGINT NOT NULL REFERENCES webhook_deliveries (seq) ON DELETE CASCADE,
    attempt       INTEGER NOT NULL,
    attempted_at  TIMESTAMPTZ NOT NULL,
    status_code   INTEGER,
    error         TEXT,
    latency_ms    INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS webhook_attempts_delivery_idx ON webhook_attempts (delivery_seq, attempt);

-- Market lifecycle as the signals processor last saw it; an active -> resolved change here is what
-- emits market.resolved (and the row records when the transition was seen).
CREATE TABLE IF NOT EXISTS signal_market_states (
    market_id         TEXT PRIMARY KEY,
    status            TEXT NOT NULL,
    resolved_outcome  TEXT,
    updated_at_ms     BIGINT NOT NULL,
    resolved_seen_at  TIMESTAMPTZ
);
