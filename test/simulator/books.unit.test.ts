import { OrderBooks } from '../../simulator/books.js';
import { renderMarket } from '../../simulator/render-gamma.js';
import { smallState } from './fixtures.js';

describe('simulated order books', () => {
  const state = smallState();
  const books = new OrderBooks(state);
  const openMarkets = state.world.markets.filter((m) => state.isAcceptingOrders(m.index));

  it('prints levels like upstream: strings, bids ascending, asks descending, best last, never crossed', () => {
    expect(openMarkets.length).toBeGreaterThan(20);
    for (const market of openMarkets) {
      for (const token of market.tokenIds) {
        const book = books.bookForToken(token)!;
        expect(book.asset_id).toBe(token);
        expect(book.market).toBe(market.conditionId);
        expect(book.hash).toMatch(/^[0-9a-f]{40}$/);
        expect(book.timestamp).toMatch(/^\d{13}$/);
        expect(book.tick_size).toBe(String(market.tickSize));
        expect(book.bids.length).toBeGreaterThanOrEqual(1);
        expect(book.asks.length).toBeGreaterThanOrEqual(1);
        expect(book.bids.length).toBeLessThanOrEqual(30);
        for (const level of [...book.bids, ...book.asks]) {
          expect(typeof level.price).toBe('string');
          expect(typeof level.size).toBe('string');
          expect(Number(level.size)).toBeGreaterThan(0);
        }
        const bidPrices = book.bids.map((l) => Number(l.price));
        const askPrices = book.asks.map((l) => Number(l.price));
        expect(bidPrices).toEqual([...bidPrices].sort((a, b) => a - b));
        expect(askPrices).toEqual([...askPrices].sort((a, b) => b - a));
        expect(bidPrices.at(-1)).toBe(Math.max(...bidPrices));
        expect(askPrices.at(-1)).toBe(Math.min(...askPrices));
        expect(Math.max(...bidPrices)).toBeLessThan(Math.min(...askPrices));
      }
    }
  });

  it('agrees with Gamma bestBid/bestAsk and mirrors YES into NO', () => {
    for (const market of openMarkets) {
      const json = renderMarket(state, books, market, { withEvent: false });
      const yes = books.bookForToken(market.tokenIds[0])!;
      const no = books.bookForToken(market.tokenIds[1])!;
      expect(Number(yes.bids.at(-1)!.price)).toBeCloseTo(json.bestBid as number, 9);
      expect(Number(yes.asks.at(-1)!.price)).toBeCloseTo(json.bestAsk as number, 9);
      expect(Number(no.bids.at(-1)!.price)).toBeCloseTo(1 - Number(yes.asks.at(-1)!.price), 9);
      expect(Number(no.asks.at(-1)!.price)).toBeCloseTo(1 - Number(yes.bids.at(-1)!.price), 9);
    }
  });

  it('has no book for unknown tokens or markets that stopped trading', () => {
    expect(books.bookForToken('123')).toBeNull();
    const closed = state.world.markets.find((m) => state.status[m.index]!.closed)!;
    expect(books.bookForToken(closed.tokenIds[0])).toBeNull();
  });

  it('changes content and hash when trades print or the price moves', () => {
    const local = smallState();
    const localBooks = new OrderBooks(local);
    const market = local.world.markets.filter((m) => local.isAcceptingOrders(m.index)).sort((a, b) => b.popularity - a.popularity)[0]!;
    const before = localBooks.bookForToken(market.tokenIds[0])!;
    expect(localBooks.bookForToken(market.tokenIds[0])!.hash).toBe(before.hash);
    local.advance(5 * 60_000);
    const after = localBooks.bookForToken(market.tokenIds[0])!;
    expect(after.hash).not.toBe(before.hash);
  });
});
