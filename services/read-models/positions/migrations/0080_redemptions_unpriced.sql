-- A CTF redemption's payout, shared by all its legs: with it a redemption's rows describe the whole
-- redemption, and a rewind that changed what its keys held before it prices its legs again from them
-- (ledger.ts "cross-key rewinds"). 0 on every other row.
ALTER TABLE position_ledger ADD COLUMN IF NOT EXISTS paid_usdc UInt64 DEFAULT 0;

-- Redemptions the ledger applied before their market's payout was known (read from what they paid and
-- the shares held then). The market's resolution, when the ledger reads it, prices them again and
-- marks them priced. Ordered by market: the resolution finds its redemptions by a key range.
CREATE TABLE IF NOT EXISTS position_redemptions_unpriced
(
    market_id String,
    wallet    String,
    event_id  String,
    asset_id  String,
    priced    UInt8,
    at        DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(at)
ORDER BY (market_id, wallet, event_id);
