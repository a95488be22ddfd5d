-- Accounts own API keys. Only a SHA-256 of each key is stored; the key itself is shown once.
CREATE TABLE IF NOT EXISTS accounts (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('agent', 'developer')),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS api_keys (
    id          BIGSERIAL PRIMARY KEY,
    account_id  BIGINT NOT NULL REFERENCES accounts (id),
    key_hash    TEXT NOT NULL UNIQUE,
    key_hint    TEXT NOT NULL,
    tier        TEXT NOT NULL CHECK (tier IN ('sandbox', '1', '2', '3')),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at  TIMESTAMPTZ
);
