-- Per-market tapes and per-wallet histories read trades by market or wallet, newest first. The base
-- table is ordered by time, so those reads would scan; projections keep the same rows ordered by
-- (market_id, ts) and (wallet, ts), which ClickHouse picks automatically for such filters.
-- ReplacingMergeTree needs to be told to rebuild projections when merges drop duplicate rows.
ALTER TABLE trades MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild';

ALTER TABLE trades ADD PROJECTION IF NOT EXISTS by_market (SELECT * ORDER BY market_id, ts, trade_id);

ALTER TABLE trades ADD PROJECTION IF NOT EXISTS by_wallet (SELECT * ORDER BY wallet, ts, trade_id);

ALTER TABLE trades MATERIALIZE PROJECTION by_market;

ALTER TABLE trades MATERIALIZE PROJECTION by_wallet;
