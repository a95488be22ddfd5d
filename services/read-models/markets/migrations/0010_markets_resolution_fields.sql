-- Ingestion: resolution fields added to `markets` (MarketUpserted gained them with null defaults).
--   uma_resolution_status  upstream umaResolutionStatus (proposed, resolved, ...), null when absent
--   accepting_orders       closed markets may still accept orders (closed != not tradable)
--   neg_risk_market_id     shared by all members of a neg-risk event
--   question_id, tick_size, resolved_at (umaEndDate or closedTime of a resolved market)
ALTER TABLE markets ADD COLUMN IF NOT EXISTS uma_resolution_status Nullable(String);
ALTER TABLE markets ADD COLUMN IF NOT EXISTS accepting_orders Nullable(Bool);
ALTER TABLE markets ADD COLUMN IF NOT EXISTS neg_risk_market_id Nullable(String);
ALTER TABLE markets ADD COLUMN IF NOT EXISTS question_id Nullable(String);
ALTER TABLE markets ADD COLUMN IF NOT EXISTS tick_size Nullable(Float64);
ALTER TABLE markets ADD COLUMN IF NOT EXISTS resolved_at Nullable(DateTime64(3, 'UTC'));
