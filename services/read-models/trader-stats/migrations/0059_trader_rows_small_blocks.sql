-- A leaderboard page completes its 51 wallets from trader_lifetime and trader_days (leaderboard.ts
-- pageFigures): 51 key ranges spread over the tables. Each range is a 256-row granule, but a read
-- decompresses the whole compressed block holding it, by default at least 64 KiB of each column. Blocks
-- closed after 4 KiB hold about two granules, so a wallet's read decompresses little more than its
-- rows. The setting applies to parts written from now on: new tables get it
-- for every part, existing parts take it as merges rewrite them.
ALTER TABLE trader_lifetime MODIFY SETTING min_compress_block_size = 4096;

ALTER TABLE trader_days MODIFY SETTING min_compress_block_size = 4096;
