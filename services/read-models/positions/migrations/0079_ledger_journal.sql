-- A ledger batch is one insert into position_ledger, and its views (position_state, position_head,
-- trader_days, ...) are written by that insert after the ledger's part. A process killed between the
-- two left rows in position_ledger that no view had, and the batch's redelivery did not write the same
-- rows again (the Data API trades of it had meanwhile come inside the chain's coverage and were
-- skipped), so the ledger found no state for those keys: their chain twins were applied beside them
-- (the history fill's e2e with kill -9, one run in two).
--
-- ledger.ts writes each batch's rows here before its insert, and a ledger that starts inserts the last
-- one again with the same token: ClickHouse drops the rows position_ledger has (its deduplication
-- window) and, with deduplicate_blocks_in_dependent_materialized_views (the store sets it with every
-- token), writes each view's block unless that view's table has it. So every view's table needs its
-- own window, as position_ledger has; without one, a batch written again would count twice there.
CREATE TABLE IF NOT EXISTS ledger_journal
(
    slot   UInt8,
    token  String,
    rows   String
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY slot;

ALTER TABLE position_state MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE position_daily MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE trader_days MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE trader_lifetime MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE trader_market_pnl MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE trader_recent_days MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE trader_window_counts MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE wallet_coverage MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE ledger_progress MODIFY SETTING non_replicated_deduplication_window = 1000;
