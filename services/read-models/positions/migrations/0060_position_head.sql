-- The ledger reads the state of every (wallet, token) it changes that is neither in its cache nor new
-- (ledger.ts loadStates). From position_state that read costs one granule per part per key, and the
-- share of such keys grows with the store. position_head keeps the same state - the row with the
-- highest rev, as position_state's argMax - in a key-value table (RocksDB), whose read of a key is a
-- point get, not a granule per part (bench:scale reports the lookups: bench/results/scale.json,
-- ledger_throughput.state).
--
-- Its view groups each inserted block by key and writes the row of the highest rev; a later write of
-- a key replaces the earlier one. That is the highest rev overall because the ledger numbers a key's
-- rows upwards and inserts them in that order (a block of an insert never holds a lower rev than the
-- blocks before it). position_state stays what reads and rebuilds use; this table only serves the
-- ledger, and is filled here from position_state (migrations run before any consumer starts). On a
-- ClickHouse server the table lives on that server's disk and is not replicated, which suits the one
-- ledger consumer that writes and reads it. Writes go to RocksDB's memtable (optimize_for_bulk_insert
-- = 0). The default ingests an SST file per insert, which wrote faster but made the ledger's gets
-- slower (chDB 26.7).
CREATE TABLE IF NOT EXISTS position_head
(
    key           String,
    qty           UInt64,
    cost          UInt64,
    opened_at     DateTime64(3, 'UTC'),
    time          DateTime64(3, 'UTC'),
    block_number  UInt64,
    log_index     Int32,
    event_id      String,
    rev           UInt64
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY key
SETTINGS optimize_for_bulk_insert = 0;

DROP VIEW IF EXISTS position_head_mv;

-- A rerun after a crash empties and fills it again.
TRUNCATE TABLE position_head;

CREATE MATERIALIZED VIEW IF NOT EXISTS position_head_mv TO position_head AS
SELECT concat(wallet, '|', asset_id) AS key, s.1 AS qty, s.2 AS cost, s.3 AS opened_at, s.4 AS time, s.5 AS block_number,
       s.6 AS log_index, s.7 AS event_id, top_rev AS rev
FROM (SELECT wallet, asset_id, argMax((qty_after, cost_after, opened_at, time, block_number, log_index, event_id), rev) AS s, max(rev) AS top_rev
        FROM position_ledger GROUP BY wallet, asset_id);

INSERT INTO position_head
SELECT concat(wallet, '|', asset_id) AS key, s.1 AS qty, s.2 AS cost, s.3 AS opened_at, s.4 AS time, s.5 AS block_number,
       s.6 AS log_index, s.7 AS event_id, top_rev AS rev
FROM (SELECT wallet, asset_id, argMaxMerge(state) AS s, max(max_rev) AS top_rev FROM position_state GROUP BY wallet, asset_id);
