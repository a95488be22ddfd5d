-- Gamma's marketMakerAddress (MarketUpserted gained it with a default): the market's legacy AMM
-- (FixedProductMarketMaker, 2020-2022). The chain source reads the FPMM events of the addresses known
-- here (docs/CHAIN.md "Legacy AMM"); null for order-book-only markets.
ALTER TABLE markets ADD COLUMN IF NOT EXISTS market_maker_address Nullable(String);
