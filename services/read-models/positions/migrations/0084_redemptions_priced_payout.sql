-- The catalog payout that priced a redemption (priced = 2), as the ledger formats it ('[1,0]/1'); ''
-- otherwise, and on rows stored before this column. A later catalog resolution of the market with
-- another payout (Gamma corrected it) prices the redemption again, as a differing chain payout does.
ALTER TABLE position_redemptions_unpriced ADD COLUMN IF NOT EXISTS payout String DEFAULT '';
