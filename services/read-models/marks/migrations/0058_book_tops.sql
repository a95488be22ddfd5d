-- Each outcome token's newest order book top (best bid and ask), what positions are marked with
-- (../mark-price.ts), one row per (market, token) instead of the token's snapshots. Reports read the
-- books of their markets' tokens (../../positions/market-data.ts). Read from order_books, that grouped every
-- snapshot of each token, 30 days of them, so a wallet read's cost grew with how often books change.
--
-- The top is argMax by (ts, ingested_at), as order_books keeps them: the newest snapshot, and of two
-- versions of one snapshot the later ingested. argMax and max are idempotent, so a redelivered or
-- replayed snapshot changes nothing. last_ts is the newest snapshot's time: a token whose newest book is older
-- than order_books' 30-day TTL loses its top as order_books loses the book.
-- ORDER BY (market_id, asset_id): a wallet's markets are ranges of the key, each with its tokens.
CREATE TABLE IF NOT EXISTS book_tops
(
    market_id  String,
    asset_id   String,
    top        AggregateFunction(argMax, Tuple(Nullable(Float64), Nullable(Float64)), Tuple(DateTime64(3, 'UTC'), DateTime64(3, 'UTC'))),
    last_ts    SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (market_id, asset_id)
TTL toDateTime(last_ts) + INTERVAL 30 DAY
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS book_tops_mv TO book_tops AS
SELECT market_id, asset_id, argMaxState((best_bid, best_ask), (ts, ingested_at)) AS top, max(ts) AS last_ts
FROM order_books
GROUP BY market_id, asset_id;

-- Filled from order_books (a rerun after a crash empties and fills it again; no writes while
-- migrations run). insert_deduplicate = 0: a block equal to one the view wrote earlier must land.
TRUNCATE TABLE book_tops;

INSERT INTO book_tops (market_id, asset_id, top, last_ts)
SELECT market_id, asset_id, argMaxState((best_bid, best_ask), (ts, ingested_at)) AS top, max(ts) AS last_ts
FROM order_books
GROUP BY market_id, asset_id
SETTINGS insert_deduplicate = 0;
