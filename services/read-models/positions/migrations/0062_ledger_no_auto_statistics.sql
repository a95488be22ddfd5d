-- No automatic column statistics on the ledger and the tables its views fill. ClickHouse 26 computes
-- them in every merge for every column (chDB 26.7: auto_statistics_types 'basic, uniq_v2'); no read of these
-- tables uses them (each reads by its sorting key), and merges are a large share of the ledger's work:
-- the views' tables are each about the ledger's size. Parts written before keep theirs until merged.
-- A server without the setting skips these statements (migrate.ts, OPTIONAL_SETTINGS).
ALTER TABLE position_ledger MODIFY SETTING auto_statistics_types = '';
ALTER TABLE position_state MODIFY SETTING auto_statistics_types = '';
ALTER TABLE position_daily MODIFY SETTING auto_statistics_types = '';
ALTER TABLE trader_days MODIFY SETTING auto_statistics_types = '';
ALTER TABLE trader_lifetime MODIFY SETTING auto_statistics_types = '';
ALTER TABLE trader_market_pnl MODIFY SETTING auto_statistics_types = '';
ALTER TABLE trader_recent_days MODIFY SETTING auto_statistics_types = '';
ALTER TABLE trader_window_counts MODIFY SETTING auto_statistics_types = '';
ALTER TABLE trader_touches MODIFY SETTING auto_statistics_types = '';
ALTER TABLE ledger_progress MODIFY SETTING auto_statistics_types = '';
