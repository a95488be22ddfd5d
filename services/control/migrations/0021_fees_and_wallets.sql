-- The fee ledger (docs/FEES.md): one row per quoted copy-trade fee. A fee is charged at most once:
-- settling is a conditional update of a `quoted` row, and a transaction hash pays one fee only.
-- Amounts: fee_usdc in micro-USDC; `amount` in the currency's smallest unit (micro-credits, token
-- base units, wei), `decimals` says how many.
CREATE TABLE IF NOT EXISTS fee_ledger (
    seq                  BIGSERIAL PRIMARY KEY,
    fee_id               TEXT NOT NULL UNIQUE,
    account_id           BIGINT NOT NULL REFERENCES accounts (id),
    state                TEXT NOT NULL CHECK (state IN ('quoted', 'settled')),
    currency             TEXT NOT NULL CHECK (currency IN ('credits', 'platform_token', 'usdc', 'native')),
    notional_usdc        NUMERIC(30, 6) NOT NULL CHECK (notional_usdc > 0),
    rate_bps             INTEGER NOT NULL,
    fee_usdc             NUMERIC(30, 6) NOT NULL,
    amount               NUMERIC(78, 0) NOT NULL,
    decimals             SMALLINT NOT NULL,
    price_usdc           TEXT,
    chain_id             INTEGER,
    token_contracts      TEXT[],
    treasury             TEXT,
    payer                TEXT,
    reference            TEXT,
    quoted_at            TIMESTAMPTZ NOT NULL,
    expires_at           TIMESTAMPTZ NOT NULL,
    settled_at           TIMESTAMPTZ,
    tx_hash              TEXT,
    tx_block             BIGINT,
    paid_amount          NUMERIC(78, 0),
    paid_token           TEXT,
    UNIQUE (chain_id, tx_hash)
);

CREATE INDEX IF NOT EXISTS fee_ledger_account_idx ON fee_ledger (account_id, seq);

-- A wallet linked to an account by a signed message: its platform-token balance on chain decides the tier.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS wallet_address TEXT;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS wallet_linked_at TIMESTAMPTZ;
-- One account per wallet: a balance must not lift several accounts at once.
CREATE UNIQUE INDEX IF NOT EXISTS accounts_wallet_idx ON accounts (wallet_address) WHERE wallet_address IS NOT NULL;
