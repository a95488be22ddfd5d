-- The receiver host of a subscription (scheme://[user@]host[:port] -> host[:port], lower case), for
-- the dispatcher's per-host cap. Stored once per subscription instead of derived by a regular
-- expression from every subscription's URL in every claim: with 1,000 subscriptions that derivation
-- and the per-row in-flight counts made a claim 40 ms of PGlite's one thread (outbox.ts, claimDue).
ALTER TABLE webhook_subscriptions ADD COLUMN IF NOT EXISTS host TEXT
    GENERATED ALWAYS AS (lower(substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?([^/?#]+)'))) STORED;
