-- What trader reports value positions and PnL curves with, per market (../market-data.ts), in one table
-- instead of two candle tables: each UTC day's close in YES terms and how many inputs (chain taker fills
-- and Data API trades) fed it, and one row per market with day 1970-01-01 (the GROUPING SETS total)
-- holding its newest close and the count of all its inputs.
--
-- A close is argMax by (day, origin, order): on a day with chain fills, the chain's last fill in
-- (block, log index) order wins over the Data API's (origin 1 over 0); a Data API close is its last trade
-- by time (the Data API gives seconds, so trades of one second are ordered by a hash of their id:
-- arbitrary, but the same on every merge). Per-day rows and the market's total row come from the same
-- view insert, so they land in the same part: a report that reads the total and today's rows gets the
-- count of inputs dated before today from one consistent reading (the stored curves' witness,
-- ../../trader-stats/stored-curve.ts). Rows are only added, so any input dated on a past day raises that count; a reorg's
-- retraction rebuilds the markets it touched (chain-ledger/retraction.ts).
-- ORDER BY (market_id, day): a wallet's markets are ranges of the key, and the total row is first in each.
CREATE TABLE IF NOT EXISTS market_closes
(
    market_id  String,
    day        Date,
    close      AggregateFunction(argMax, Float64, Tuple(Date, UInt8, UInt64, Int64)),
    inputs     SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
ORDER BY (market_id, day)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS market_closes_chain_mv TO market_closes AS
SELECT market_id, toDate(block_time, 'UTC') AS day,
       argMaxState(yes_price, (toDate(block_time, 'UTC'), toUInt8(1), block_number, toInt64(log_index))) AS close, count() AS inputs
FROM chain_ledger WHERE kind = 'fill' AND role = 'taker'
GROUP BY GROUPING SETS ((market_id, day), (market_id));

CREATE MATERIALIZED VIEW IF NOT EXISTS market_closes_api_mv TO market_closes AS
SELECT market_id, toDate(ts, 'UTC') AS day,
       argMaxState(yes_price, (toDate(ts, 'UTC'), toUInt8(0), toUInt64(toUnixTimestamp64Milli(ts)), toInt64(bitShiftRight(cityHash64(trade_id), 1)))) AS close, count() AS inputs
FROM trades
GROUP BY GROUPING SETS ((market_id, day), (market_id));

-- Filled from the tables the views read (a rerun after a crash empties and fills it again; no writes
-- while migrations run). insert_deduplicate = 0: a block equal to one the views wrote earlier must land,
-- not be taken for a retry.
TRUNCATE TABLE market_closes;

INSERT INTO market_closes (market_id, day, close, inputs)
SELECT market_id, toDate(block_time, 'UTC') AS day,
       argMaxState(yes_price, (toDate(block_time, 'UTC'), toUInt8(1), block_number, toInt64(log_index))) AS close, count() AS inputs
FROM chain_ledger WHERE kind = 'fill' AND role = 'taker'
GROUP BY GROUPING SETS ((market_id, day), (market_id))
SETTINGS insert_deduplicate = 0;

INSERT INTO market_closes (market_id, day, close, inputs)
SELECT market_id, toDate(ts, 'UTC') AS day,
       argMaxState(yes_price, (toDate(ts, 'UTC'), toUInt8(0), toUInt64(toUnixTimestamp64Milli(ts)), toInt64(bitShiftRight(cityHash64(trade_id), 1)))) AS close, count() AS inputs
FROM trades
GROUP BY GROUPING SETS ((market_id, day), (market_id))
SETTINGS insert_deduplicate = 0;
