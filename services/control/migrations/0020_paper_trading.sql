-- Paper trading (docs/SANDBOX.md). Money and shares are exact: NUMERIC(30, 6) = micro-units of USDC
-- and of outcome shares; prices NUMERIC(10, 6). A reset starts a new epoch: the old epoch's orders,
-- fills and positions stay as history, the account shows only the current epoch.
CREATE TABLE IF NOT EXISTS paper_accounts (
    account_id        BIGINT PRIMARY KEY REFERENCES accounts (id),
    epoch             INTEGER NOT NULL DEFAULT 1,
    starting_balance  NUMERIC(30, 6) NOT NULL,
    -- Free cash; cash held for resting buy orders is in `reserved`, not here.
    cash              NUMERIC(30, 6) NOT NULL CHECK (cash >= 0),
    reserved          NUMERIC(30, 6) NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    realized_pnl      NUMERIC(30, 6) NOT NULL DEFAULT 0,
    fees_paid         NUMERIC(30, 6) NOT NULL DEFAULT 0,
    -- Highest equity seen at a valuation (account read or briefing) since the epoch began: the drawdown reference.
    peak_equity       NUMERIC(30, 6) NOT NULL,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    epoch_started_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS paper_orders (
    seq               BIGSERIAL PRIMARY KEY,
    order_id          TEXT NOT NULL UNIQUE,
    account_id        BIGINT NOT NULL REFERENCES accounts (id),
    epoch             INTEGER NOT NULL,
    market_id         TEXT NOT NULL,
    market_title      TEXT NOT NULL,
    asset_id          TEXT NOT NULL,
    outcome           TEXT NOT NULL,
    outcome_index     SMALLINT NOT NULL,
    side              TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
    type              TEXT NOT NULL CHECK (type IN ('market', 'limit')),
    time_in_force     TEXT NOT NULL CHECK (time_in_force IN ('GTC', 'IOC', 'FOK')),
    size              NUMERIC(30, 6) NOT NULL CHECK (size > 0),
    limit_price       NUMERIC(10, 6),
    -- open: resting (nothing filled yet); partial: resting with some filled; filled; cancelled.
    status            TEXT NOT NULL CHECK (status IN ('open', 'partial', 'filled', 'cancelled')),
    cancel_reason     TEXT,
    filled_size       NUMERIC(30, 6) NOT NULL DEFAULT 0,
    filled_notional   NUMERIC(30, 6) NOT NULL DEFAULT 0,
    fees              NUMERIC(30, 6) NOT NULL DEFAULT 0,
    -- Cash (buy) or shares (sell) still held for the resting remainder.
    reserved          NUMERIC(30, 6) NOT NULL DEFAULT 0,
    best_price        NUMERIC(10, 6),
    mid_price         NUMERIC(10, 6),
    book_hash         TEXT,
    book_at           TIMESTAMPTZ,
    book_source       TEXT,
    fee_rate          NUMERIC(10, 6) NOT NULL DEFAULT 0,
    fee_exponent      SMALLINT NOT NULL DEFAULT 1,
    fee_basis         TEXT NOT NULL DEFAULT 'none',
    idempotency_key   TEXT,
    request_hash      TEXT,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL,
    UNIQUE (account_id, idempotency_key)
);

CREATE INDEX IF NOT EXISTS paper_orders_account_idx ON paper_orders (account_id, epoch, seq);
CREATE INDEX IF NOT EXISTS paper_orders_resting_idx ON paper_orders (asset_id) WHERE status IN ('open', 'partial');
CREATE INDEX IF NOT EXISTS paper_orders_market_resting_idx ON paper_orders (market_id) WHERE status IN ('open', 'partial');

CREATE TABLE IF NOT EXISTS paper_fills (
    seq            BIGSERIAL PRIMARY KEY,
    fill_id        TEXT NOT NULL UNIQUE,
    order_id       TEXT NOT NULL REFERENCES paper_orders (order_id),
    account_id     BIGINT NOT NULL REFERENCES accounts (id),
    epoch          INTEGER NOT NULL,
    market_id      TEXT NOT NULL,
    asset_id       TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    side           TEXT NOT NULL,
    price          NUMERIC(10, 6) NOT NULL,
    size           NUMERIC(30, 6) NOT NULL,
    notional       NUMERIC(30, 6) NOT NULL,
    fee            NUMERIC(30, 6) NOT NULL,
    -- taker: matched on submission against the book; maker: a resting order crossed later.
    liquidity      TEXT NOT NULL CHECK (liquidity IN ('taker', 'maker')),
    -- What filled it: the book at submission (level n), a later book snapshot, or a trade through the price.
    trigger        TEXT NOT NULL CHECK (trigger IN ('submission', 'book', 'trade')),
    -- The book hash / snapshot event / trade id that caused the fill; with order_id it makes a redelivered event harmless.
    source_ref     TEXT NOT NULL,
    -- Book level (1 = best) of a submission fill; 0 for a resting fill.
    level          INTEGER NOT NULL DEFAULT 0,
    created_at     TIMESTAMPTZ NOT NULL,
    UNIQUE (order_id, source_ref, level)
);

CREATE INDEX IF NOT EXISTS paper_fills_account_idx ON paper_fills (account_id, epoch, seq);

CREATE TABLE IF NOT EXISTS paper_positions (
    account_id      BIGINT NOT NULL REFERENCES accounts (id),
    epoch           INTEGER NOT NULL,
    asset_id        TEXT NOT NULL,
    market_id       TEXT NOT NULL,
    market_title    TEXT NOT NULL,
    outcome         TEXT NOT NULL,
    outcome_index   SMALLINT NOT NULL,
    shares          NUMERIC(30, 6) NOT NULL DEFAULT 0 CHECK (shares >= 0),
    -- Shares held for resting sell orders (part of `shares`).
    reserved_shares NUMERIC(30, 6) NOT NULL DEFAULT 0 CHECK (reserved_shares >= 0),
    -- Weighted-average cost basis of the shares held (excludes fees): average entry = cost / shares.
    cost            NUMERIC(30, 6) NOT NULL DEFAULT 0,
    realized_pnl    NUMERIC(30, 6) NOT NULL DEFAULT 0,
    fees_paid       NUMERIC(30, 6) NOT NULL DEFAULT 0,
    bought_shares   NUMERIC(30, 6) NOT NULL DEFAULT 0,
    sold_shares     NUMERIC(30, 6) NOT NULL DEFAULT 0,
    -- open, or settled at resolution (payout per share) / voided (returned at average entry).
    status          TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'settled', 'voided')),
    settlement_price NUMERIC(10, 6),
    settled_at      TIMESTAMPTZ,
    opened_at       TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (account_id, epoch, asset_id)
);

CREATE INDEX IF NOT EXISTS paper_positions_market_idx ON paper_positions (market_id) WHERE status = 'open';

-- One row per settled (or voided) position: the history of resolutions in an account.
CREATE TABLE IF NOT EXISTS paper_settlements (
    seq            BIGSERIAL PRIMARY KEY,
    account_id     BIGINT NOT NULL REFERENCES accounts (id),
    epoch          INTEGER NOT NULL,
    market_id      TEXT NOT NULL,
    market_title   TEXT NOT NULL,
    asset_id       TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('resolved', 'voided')),
    shares         NUMERIC(30, 6) NOT NULL,
    price          NUMERIC(10, 6) NOT NULL,
    proceeds       NUMERIC(30, 6) NOT NULL,
    cost           NUMERIC(30, 6) NOT NULL,
    realized_pnl   NUMERIC(30, 6) NOT NULL,
    winning_outcome TEXT,
    settled_at     TIMESTAMPTZ NOT NULL,
    UNIQUE (account_id, epoch, asset_id)
);

CREATE INDEX IF NOT EXISTS paper_settlements_account_idx ON paper_settlements (account_id, epoch, seq);

-- Briefing signals: large trades, price signals and resolutions recorded by the sandbox processor
-- (same detectors as the webhooks), read by GET /briefing after an agent's cursor.
CREATE TABLE IF NOT EXISTS briefing_signals (
    seq          BIGSERIAL PRIMARY KEY,
    signal_id    TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL CHECK (kind IN ('large_trade', 'price_signal', 'resolution')),
    market_id    TEXT NOT NULL,
    category     TEXT NOT NULL,
    payload      JSONB NOT NULL,
    occurred_at  TIMESTAMPTZ NOT NULL,
    recorded_at  TIMESTAMPTZ NOT NULL
);

CREATE INDEX IF NOT EXISTS briefing_signals_recorded_idx ON briefing_signals (recorded_at);

-- Where each agent's last briefing ended (signals, fills and settlements served up to these points) and its topics.
CREATE TABLE IF NOT EXISTS agent_briefings (
    account_id        BIGINT PRIMARY KEY REFERENCES accounts (id),
    topics            TEXT[] NOT NULL DEFAULT '{}',
    signal_seq        BIGINT NOT NULL DEFAULT 0,
    fill_seq          BIGINT NOT NULL DEFAULT 0,
    settlement_seq    BIGINT NOT NULL DEFAULT 0,
    last_briefing_at  TIMESTAMPTZ
);

-- How far the sandbox processor has applied each stream (data_as_of of a briefing).
CREATE TABLE IF NOT EXISTS sandbox_progress (
    topic        TEXT PRIMARY KEY,
    event_at     TIMESTAMPTZ NOT NULL,
    applied_at   TIMESTAMPTZ NOT NULL
);
