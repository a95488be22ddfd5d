-- What a wallet read values positions with (the markets' catalog records, newest closes and book
-- tops: ../../positions/market-data.ts) as one value per market in a key-value table. Read from markets,
-- market_closes and book_tops under the wallet's markets, that part added three tables to plan and
-- open to every wallet statement (docs/POSITIONS.md "Marks by key"). The value is rebuilt from those three
-- tables by the marks refresher (market-marks.ts) for every market they were written for: the views
-- below note each write in market_touches (kept a day), and the refresher reads the touches since
-- its previous run less an overlap, so a touch that became visible late is still picked up.
CREATE TABLE IF NOT EXISTS market_marks
(
    market_id     String,
    -- markets FINAL's record as the JSON row market-data.ts reads (NULL: not in the catalog).
    catalog       Nullable(String),
    -- market_closes: the newest close in YES terms (NULL: no close), the count of all inputs and
    -- the inputs of each day from the refresh's day less one on, so that a read of a later day
    -- can count the inputs dated before it.
    close         Nullable(Float64),
    inputs_total  Int64,
    inputs_days   Array(Tuple(Int64, Int64)),
    -- book_tops: per token its newest best bid and ask and the newest snapshot's time (ms).
    books         Array(Tuple(String, Nullable(Float64), Nullable(Float64), Int64)),
    refreshed_at  DateTime64(3, 'UTC')
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY market_id
SETTINGS optimize_for_bulk_insert = 0;

CREATE TABLE IF NOT EXISTS market_touches
(
    market_id   String,
    touched_at  DateTime64(3, 'UTC')
)
ENGINE = MergeTree
ORDER BY touched_at
TTL toDateTime(touched_at) + INTERVAL 1 DAY
SETTINGS auto_statistics_types = '';

-- The start of the refresher's newest run that wrote its markets (one row, id 0): a restarted refresher
-- reads the touches from there, or rebuilds every market when that is older than the touches kept.
CREATE TABLE IF NOT EXISTS market_marks_progress
(
    id        UInt8,
    since_ms  Int64
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_touches_catalog_mv TO market_touches AS
SELECT DISTINCT market_id, now64(3) AS touched_at FROM markets;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_touches_closes_mv TO market_touches AS
SELECT DISTINCT market_id, now64(3) AS touched_at FROM market_closes;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_touches_books_mv TO market_touches AS
SELECT DISTINCT market_id, now64(3) AS touched_at FROM book_tops;

-- Every market already written: the refresher's first run values them (a rerun touches them again;
-- no progress row yet, so that run reads every touch kept).
INSERT INTO market_touches (market_id, touched_at)
SELECT DISTINCT market_id, now64(3) FROM (
    SELECT market_id FROM markets UNION ALL SELECT market_id FROM market_closes UNION ALL SELECT market_id FROM book_tops);
