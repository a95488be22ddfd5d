-- The other wallet of a transfer's row (transfer_out: the receiver; transfer_in: the sender), so a
-- rewind of the sender that re-prices the shares it sent finds the receiver's row to re-price
-- (ledger.ts "cross-key rewinds"). Empty on every other row.
ALTER TABLE position_ledger ADD COLUMN IF NOT EXISTS counterparty String DEFAULT '';
