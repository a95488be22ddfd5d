-- What coverage.ts asks of a wallet to tell whether it was active before the chain's coverage
-- (wallet_predates), one row per wallet so a page of wallets is one keyed read instead of a read of
-- every wallet's ledger (a 1M-row wallet took 29 ms p50, 269 ms p90):
-- - first_time: the wallet's oldest change, min(time) over its rows like position_state.first_time.
--   A cancelled (sign = -1) row leaves its time in the min, which changes no answer: a rewind replays
--   the rows it cancels at their own times; a Data API record is cancelled only for its chain twin of
--   the same transaction (the same block time); a reorg retracts blocks at the head, never older than
--   the coverage's start, which is all the flag compares first_time with.
-- - unheld: shares the wallet sold, merged, converted or transferred out beyond what the ledger saw
--   it hold (in_qty + qty_delta of its sell and sell_at_cost rows), summed with sign so it is the sum
--   over the rows that stand after every rewind and retraction.
CREATE TABLE IF NOT EXISTS wallet_coverage
(
    wallet      String,
    first_time  SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    unheld      SimpleAggregateFunction(sum, Int64)
)
ENGINE = AggregatingMergeTree
ORDER BY wallet
-- Fed by a view of the ledger, so merged as often: no automatic statistics, as 0062 says.
SETTINGS index_granularity = 256, auto_statistics_types = '';

CREATE MATERIALIZED VIEW IF NOT EXISTS wallet_coverage_mv TO wallet_coverage AS
SELECT wallet, min(time) AS first_time,
       sumIf(sign * (toInt64(in_qty) + qty_delta), action IN ('sell', 'sell_at_cost')) AS unheld
FROM position_ledger GROUP BY wallet;

-- Built from position_ledger (the source of truth) like 0043/0044: migrations run before any ledger
-- consumer starts, and a rerun after a crash halfway empties and rebuilds it.
TRUNCATE TABLE wallet_coverage;

INSERT INTO wallet_coverage (wallet, first_time, unheld)
SELECT wallet, min(time) AS first_time,
       sumIf(sign * (toInt64(in_qty) + qty_delta), action IN ('sell', 'sell_at_cost')) AS unheld
FROM position_ledger GROUP BY wallet;
