-- Fee fields added to `markets` (MarketUpserted gained them with defaults; Gamma's feeSchedule):
--   fees_enabled    false = no platform fee on this market
--   fee_type        category label (crypto_fees_v2, sports_fees_v2, politics_fees, ...)
--   fee_rate        feeSchedule.rate; taker fee = shares x rate x (p x (1 - p))^fee_exponent
--   fee_exponent    feeSchedule.exponent
--   fee_taker_only  feeSchedule.takerOnly (makers pay nothing)
ALTER TABLE markets ADD COLUMN IF NOT EXISTS fees_enabled Bool DEFAULT false;
ALTER TABLE markets ADD COLUMN IF NOT EXISTS fee_type Nullable(String);
ALTER TABLE markets ADD COLUMN IF NOT EXISTS fee_rate Nullable(Float64);
ALTER TABLE markets ADD COLUMN IF NOT EXISTS fee_exponent Nullable(Float64);
ALTER TABLE markets ADD COLUMN IF NOT EXISTS fee_taker_only Nullable(Bool);
