-- Tiers are derived from an account's platform-token balance, with credits as the fallback, so the
-- per-key tier column of 0001 goes: a key is as strong as its account's balances right now.
ALTER TABLE api_keys DROP COLUMN IF EXISTS tier;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS token_balance NUMERIC(30, 6) NOT NULL DEFAULT 0 CHECK (token_balance >= 0);
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS credits NUMERIC(30, 6) NOT NULL DEFAULT 0 CHECK (credits >= 0);

-- Metered calls per account and UTC day (the quota period).
CREATE TABLE IF NOT EXISTS usage_counters (
    account_id     BIGINT NOT NULL REFERENCES accounts (id),
    period_start   DATE NOT NULL,
    calls          BIGINT NOT NULL DEFAULT 0,
    credits_spent  NUMERIC(30, 6) NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period_start)
);
