-- Legacy AMM trades (fills of role 'amm', docs/CHAIN.md "Legacy AMM") are, like a match's taker fill,
-- the one record of a trade: the candles and the daily closes count them too. The views are made again
-- with that filter (no chain_ledger row had the role before, so nothing is to be added to their tables;
-- no writes while migrations run).
DROP VIEW IF EXISTS chain_candles_5m_mv;
CREATE MATERIALIZED VIEW IF NOT EXISTS chain_candles_5m_mv TO chain_candles_5m AS
SELECT market_id, toStartOfFiveMinutes(block_time) AS bucket,
       argMinState(yes_price, (block_number, log_index)) AS open, max(yes_price) AS high, min(yes_price) AS low,
       argMaxState(yes_price, (block_number, log_index)) AS close,
       sum(usdc_micro) AS volume_usdc_micro, sum(shares_micro) AS volume_shares_micro, count() AS trade_count
FROM chain_ledger WHERE kind = 'fill' AND role IN ('taker', 'amm')
GROUP BY market_id, bucket;

DROP VIEW IF EXISTS chain_candles_1h_mv;
CREATE MATERIALIZED VIEW IF NOT EXISTS chain_candles_1h_mv TO chain_candles_1h AS
SELECT market_id, toStartOfHour(block_time) AS bucket,
       argMinState(yes_price, (block_number, log_index)) AS open, max(yes_price) AS high, min(yes_price) AS low,
       argMaxState(yes_price, (block_number, log_index)) AS close,
       sum(usdc_micro) AS volume_usdc_micro, sum(shares_micro) AS volume_shares_micro, count() AS trade_count
FROM chain_ledger WHERE kind = 'fill' AND role IN ('taker', 'amm')
GROUP BY market_id, bucket;

DROP VIEW IF EXISTS chain_candles_1d_mv;
CREATE MATERIALIZED VIEW IF NOT EXISTS chain_candles_1d_mv TO chain_candles_1d AS
SELECT market_id, toStartOfDay(block_time) AS bucket,
       argMinState(yes_price, (block_number, log_index)) AS open, max(yes_price) AS high, min(yes_price) AS low,
       argMaxState(yes_price, (block_number, log_index)) AS close,
       sum(usdc_micro) AS volume_usdc_micro, sum(shares_micro) AS volume_shares_micro, count() AS trade_count
FROM chain_ledger WHERE kind = 'fill' AND role IN ('taker', 'amm')
GROUP BY market_id, bucket;

DROP VIEW IF EXISTS market_closes_chain_mv;
CREATE MATERIALIZED VIEW IF NOT EXISTS market_closes_chain_mv TO market_closes AS
SELECT market_id, toDate(block_time, 'UTC') AS day,
       argMaxState(yes_price, (toDate(block_time, 'UTC'), toUInt8(1), block_number, toInt64(log_index))) AS close, count() AS inputs
FROM chain_ledger WHERE kind = 'fill' AND role IN ('taker', 'amm')
GROUP BY GROUPING SETS ((market_id, day), (market_id));
