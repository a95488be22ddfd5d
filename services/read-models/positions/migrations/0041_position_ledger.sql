-- The position ledger (../ledger.ts): one row per change of a (wallet, outcome token) - fills of both
-- sides, splits, merges, redemptions, neg-risk conversion legs - in chain order, with the input it
-- applied (to replay it), its effect (shares, cash, realized PnL, volume) and the state after it
-- (shares held, cost basis of the held shares). Amounts are exact micro-units (6 decimals).
-- rev numbers a (wallet, token)'s rows; a rewind (a change older than the newest applied, a reorg's
-- retraction, a Data API trade replaced by its chain fill) writes sign = -1 copies of the rows it
-- undoes (of_rev = the rev undone) and replays them with new revs. Every view sums value x sign.
-- One insert per batch and no partitioning: a batch's rows land in one part, all or nothing.
CREATE TABLE IF NOT EXISTS position_ledger
(
    wallet         String,
    asset_id       String,
    market_id      String,
    outcome        String,
    outcome_index  Int16,
    time           DateTime64(3, 'UTC'),
    block_number   UInt64,
    log_index      Int32,
    event_id       String,
    rev            UInt64,
    sign           Int8,
    of_rev         UInt64,
    origin         LowCardinality(String),
    source         LowCardinality(String),
    kind           LowCardinality(String),
    role           LowCardinality(String),
    action         LowCardinality(String),
    tx_hash        String,
    block_hash     String,
    ledger_group   String,
    in_qty         UInt64,
    in_usdc        UInt64,
    pay_num        UInt64,
    pay_den        UInt64,
    fee_micro      UInt64,
    price          Float64,
    qty_delta      Int64,
    cash           Int64,
    realized       Int64,
    volume         UInt64,
    trades         UInt8,
    qty_after      UInt64,
    cost_after     UInt64,
    opened_at      DateTime64(3, 'UTC'),
    ingested_at    DateTime64(3, 'UTC') DEFAULT now64(3),
    INDEX tx_idx tx_hash TYPE bloom_filter GRANULARITY 1,
    INDEX block_idx block_hash TYPE bloom_filter GRANULARITY 1
)
ENGINE = MergeTree
ORDER BY (wallet, asset_id, rev)
SETTINGS non_replicated_deduplication_window = 1000;

-- Current state of every (wallet, token): the row with the highest rev (quantity, cost basis, when the
-- holding opened, the newest change applied), and its lifetime sums. The ledger reads its state here.
CREATE TABLE IF NOT EXISTS position_current
(
    wallet         String,
    asset_id       String,
    market_id      SimpleAggregateFunction(any, String),
    outcome        SimpleAggregateFunction(any, String),
    outcome_index  SimpleAggregateFunction(any, Int16),
    state          AggregateFunction(argMax, Tuple(UInt64, UInt64, DateTime64(3, 'UTC'), DateTime64(3, 'UTC'), UInt64, Int32, String), UInt64),
    max_rev        SimpleAggregateFunction(max, UInt64),
    realized       SimpleAggregateFunction(sum, Int64),
    bought_usdc    SimpleAggregateFunction(sum, Int64),
    longshot_usdc  SimpleAggregateFunction(sum, Int64),
    volume         SimpleAggregateFunction(sum, Int64),
    trades         SimpleAggregateFunction(sum, Int64),
    fees           SimpleAggregateFunction(sum, Int64),
    first_time     SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_time      SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    INDEX market_idx market_id TYPE bloom_filter GRANULARITY 1
)
ENGINE = AggregatingMergeTree
ORDER BY (wallet, asset_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS position_current_mv TO position_current AS
SELECT wallet, asset_id, any(market_id) AS market_id, any(outcome) AS outcome, any(outcome_index) AS outcome_index,
       argMaxState((qty_after, cost_after, opened_at, time, block_number, log_index, event_id), rev) AS state,
       max(rev) AS max_rev,
       sum(realized * sign) AS realized,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy') AS bought_usdc,
       sumIf(toInt64(in_usdc) * sign, kind = 'fill' AND action = 'buy' AND price < 0.15) AS longshot_usdc,
       sum(toInt64(volume) * sign) AS volume,
       sum(toInt64(trades) * sign) AS trades,
       sum(toInt64(fee_micro) * sign) AS fees,
       min(time) AS first_time, max(time) AS last_time
FROM position_ledger GROUP BY wallet, asset_id;
