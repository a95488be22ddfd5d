-- A build writes the first LEADERBOARD_PAGE_DEPTH ranks of each board (board-pages.ts): `truncated`
-- says the board holds more wallets than its built rows, so a page its rows do not hold whole is ranked
-- live. Rows built before it held every wallet of their board: 0.
ALTER TABLE leaderboard_pages ADD COLUMN IF NOT EXISTS truncated UInt8;

ALTER TABLE leaderboard_pages_next ADD COLUMN IF NOT EXISTS truncated UInt8;
