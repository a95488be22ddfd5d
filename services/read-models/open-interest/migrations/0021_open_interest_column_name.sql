-- One name end to end: the event field, this column and the API field are all open_interest_usdc.
-- Databases created before version 20 hold the column as value_usdc.
ALTER TABLE open_interest RENAME COLUMN IF EXISTS value_usdc TO open_interest_usdc;
