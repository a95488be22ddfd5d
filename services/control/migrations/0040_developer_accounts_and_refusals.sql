-- Self-serve developer accounts give a contact address. It is stored as given and never verified or
-- mailed (the key is shown once in the sign-up response), so it is not unique: uniqueness would let
-- anyone learn which addresses have accounts, and reserve someone else's.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS email TEXT;

-- Refused calls per account and UTC day, beside the metered calls of the same day.
ALTER TABLE usage_counters ADD COLUMN IF NOT EXISTS refused_402 BIGINT NOT NULL DEFAULT 0;
ALTER TABLE usage_counters ADD COLUMN IF NOT EXISTS refused_429 BIGINT NOT NULL DEFAULT 0;

-- The most recent refused calls (402 PAYMENT_REQUIRED, 429 RATE_LIMITED) of each account, so a
-- developer can see which call was refused and why. Trimmed to the newest few per account.
CREATE TABLE IF NOT EXISTS usage_refusals (
    id          BIGSERIAL PRIMARY KEY,
    account_id  BIGINT NOT NULL REFERENCES accounts (id),
    at          TIMESTAMPTZ NOT NULL,
    status      INTEGER NOT NULL CHECK (status IN (402, 429)),
    code        TEXT NOT NULL,
    method      TEXT NOT NULL,
    path        TEXT NOT NULL,
    reason      TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS usage_refusals_account_idx ON usage_refusals (account_id, id);
