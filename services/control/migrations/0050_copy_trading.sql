-- Copy trading (docs/COPY.md). Amounts are exact: NUMERIC(30, 6) = micro-units of USDC and of outcome
-- shares; prices and ratios NUMERIC(12, 6).

-- What an account copies: one leader wallet, a sizing rule, risk limits and whether it is a dry run.
CREATE TABLE IF NOT EXISTS copy_subscriptions (
    id                       BIGSERIAL PRIMARY KEY,
    account_id               BIGINT NOT NULL REFERENCES accounts (id),
    leader_wallet            TEXT NOT NULL,
    sizing_rule              TEXT NOT NULL CHECK (sizing_rule IN ('fixed', 'proportional', 'capped')),
    fixed_usdc               NUMERIC(30, 6),
    ratio                    NUMERIC(12, 6),
    cap_usdc                 NUMERIC(30, 6),
    max_per_trade_usdc       NUMERIC(30, 6),
    max_daily_notional_usdc  NUMERIC(30, 6),
    allowed_markets          TEXT[] NOT NULL DEFAULT '{}',
    allowed_categories       TEXT[] NOT NULL DEFAULT '{}',
    max_price                NUMERIC(12, 6),
    min_order_usdc           NUMERIC(30, 6) NOT NULL DEFAULT 1,
    dry_run                  BOOLEAN NOT NULL DEFAULT true,
    enabled                  BOOLEAN NOT NULL DEFAULT true,
    created_at               TIMESTAMPTZ NOT NULL,
    updated_at               TIMESTAMPTZ NOT NULL
);

CREATE INDEX IF NOT EXISTS copy_subscriptions_account_idx ON copy_subscriptions (account_id, id);
CREATE INDEX IF NOT EXISTS copy_subscriptions_leader_idx ON copy_subscriptions (leader_wallet) WHERE enabled;

-- One row per (subscription, leader fill): the engine's decision. `id` is the trade_intent_id of the
-- copy.executed / risk.blocked event. The unique key makes a redelivered log batch, or the same match
-- reported by both the chain and the Data API, decide once.
CREATE TABLE IF NOT EXISTS copy_trade_intents (
    id                    BIGSERIAL PRIMARY KEY,
    copy_subscription_id  BIGINT NOT NULL REFERENCES copy_subscriptions (id) ON DELETE CASCADE,
    account_id            BIGINT NOT NULL REFERENCES accounts (id),
    fill_key              TEXT NOT NULL,
    leader_wallet         TEXT NOT NULL,
    leader_trade_id       TEXT NOT NULL,
    leader_origin         TEXT NOT NULL CHECK (leader_origin IN ('chain', 'data_api')),
    market_id             TEXT NOT NULL,
    market_title          TEXT NOT NULL,
    asset_id              TEXT NOT NULL,
    outcome               TEXT NOT NULL,
    side                  TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
    leader_price          NUMERIC(12, 6) NOT NULL,
    leader_size_usdc      NUMERIC(30, 6) NOT NULL,
    child_size_usdc       NUMERIC(30, 6),
    child_shares          NUMERIC(30, 6),
    status                TEXT NOT NULL CHECK (status IN ('submitted', 'dry_run', 'blocked')),
    reason                TEXT,
    source                TEXT NOT NULL,
    leader_filled_at      TIMESTAMPTZ NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    UNIQUE (copy_subscription_id, fill_key)
);

CREATE INDEX IF NOT EXISTS copy_trade_intents_day_idx ON copy_trade_intents (copy_subscription_id, created_at);
CREATE INDEX IF NOT EXISTS copy_trade_intents_asset_idx ON copy_trade_intents (copy_subscription_id, asset_id);

-- Saved strategies (strategy_lab): evaluated live on trades; a firing emits strategy.signal.
-- edge and confidence come from the strategy's own backtest when it is saved (docs/COPY.md).
CREATE TABLE IF NOT EXISTS strategies (
    id             BIGSERIAL PRIMARY KEY,
    account_id     BIGINT NOT NULL REFERENCES accounts (id),
    name           TEXT NOT NULL,
    kind           TEXT NOT NULL,
    config         JSONB NOT NULL,
    edge           NUMERIC(12, 6) NOT NULL DEFAULT 0,
    confidence     NUMERIC(12, 6) NOT NULL DEFAULT 0,
    backtest       JSONB,
    enabled        BOOLEAN NOT NULL DEFAULT true,
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL
);

CREATE INDEX IF NOT EXISTS strategies_account_idx ON strategies (account_id, id);
