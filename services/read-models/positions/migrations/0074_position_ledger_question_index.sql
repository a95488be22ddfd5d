-- A conversion leg's question within its neg-risk market (the low byte of the question id; -1 on
-- every other row). With it a conversion's rows describe the whole conversion: a rewind that re-prices
-- its NO legs rebuilds it from them (ledger.ts "cross-key rewinds"), not from the markets table, which
-- may not list every question yet and then gave k and the YES legs wrong.
ALTER TABLE position_ledger ADD COLUMN IF NOT EXISTS question_index Int16 DEFAULT -1;
