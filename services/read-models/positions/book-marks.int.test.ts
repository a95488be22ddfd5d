/**
 * Positions marked at the mid of their own token's latest order book (mark-price.ts), through the real
 * sink into chDB: the wallet statement reads the books of the wallet's tokens by order_books' primary
 * key (market-data.ts), so a book of a token the wallet does not hold, or an older book of its own
 * token, must not move the mark. Figures by hand in the comments (USDC).
 */
import { bookSnapshot, marketUpserted, outcomeFill, outcomeToken } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const NOW = Date.now();
const M = `0x${'6'.repeat(64)}`;
const N = `0x${'7'.repeat(64)}`;
const K = `0x${'4'.repeat(40)}`;
const tok = outcomeToken;

let block = 81_000_000;
function buy(market: string, i: number, shares: number, price: number, at: number) {
  block += 1;
  return outcomeFill({ tx: block, block, at, wallet: K, market, index: i, side: 'buy', shares, price });
}
const book = (market: string, i: number, bid: number, ask: number, at: number) =>
  bookSnapshot({
    event_id: `${tok(market, i)}:${at}`,
    market_id: market,
    asset_id: tok(market, i),
    hash: `h${at}`,
    timestamp_ms: at,
    ingested_at_ms: at,
    bids: [{ price: bid, size: 100 }],
    asks: [{ price: ask, size: 100 }],
  });

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('book-marks');
  const market = (id: string) =>
    marketUpserted({
      event_id: `${id}:1`,
      market_id: id,
      title: `Market ${id.slice(2, 4)}`,
      outcome_token_ids: [tok(id, 0), tok(id, 1)],
      outcome_prices: [0.5, 0.5],
      updated_at_ms: NOW,
      ingested_at_ms: NOW,
    });
  await h.given({ markets: [market(M), market(N)] });
  await h.given({
    chainLedger: [
      buy(M, 0, 10, 0.5, NOW - 60_000), // K: 10 YES of M for 5; last trade 0.5
      buy(N, 0, 10, 0.5, NOW - 50_000), // K: 10 YES of N for 5; last trade 0.5
    ],
  });
  await h.given({
    bookSnapshots: [
      book(M, 0, 0.1, 0.9, NOW - 40_000), // M YES, older and wide
      book(M, 0, 0.58, 0.62, NOW - 30_000), // M YES, latest: tight, mid 0.6
      book(M, 1, 0.2, 0.22, NOW - 20_000), // M NO: not held, must not matter
      book(N, 0, 0.3, 0.7, NOW - 10_000), // N YES: spread 0.4, too wide: last trade 0.5
    ],
  });
}, 120_000);
afterAll(() => h.close());

test('a held token marks at the mid of its latest tight book, else at the last trade', async () => {
  const { status, body } = await h.get(`/positions/${K}`);
  expect(status).toBe(200);
  const marks = body.data.positions.map((p: any) => [p.market_id, p.mark_price, p.mark_basis, p.unrealized_pnl_usdc]);
  expect(marks).toEqual([
    [M, 0.6, 'mid', 1], // 10 x 0.6 - 5 = 1
    [N, 0.5, 'last_trade', 0], // 10 x 0.5 - 5 = 0
  ]);
  const stats = await h.get(`/traders/${K}`);
  expect(stats.body.data.lifetime.unrealized_pnl).toBe(1);
});
