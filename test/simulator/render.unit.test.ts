import { OrderBooks } from '../../simulator/books.js';
import { dateOnly, decimalString, isoMicros, isoSeconds, jsonArrayString, spaceOffsetTime } from '../../simulator/formats.js';
import { renderEvent, renderMarket } from '../../simulator/render-gamma.js';
import { positionRows, renderLedgerActivity, renderTrade } from '../../simulator/render-data.js';
import { decodeJsonArray, smallState } from './fixtures.js';

const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const SPACE_OFFSET = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+00$/;

describe('wire formats', () => {
  it('prints upstream timestamp formats', () => {
    const ms = Date.UTC(2026, 2, 11, 9, 29, 1, 328);
    expect(isoMicros(ms * 1000 + 428)).toBe('2026-03-11T09:29:01.328428Z');
    expect(isoMicros(ms * 1000 + 400)).toBe('2026-03-11T09:29:01.3284Z');
    expect(isoMicros(Date.UTC(2026, 2, 12, 9, 25) * 1000)).toBe('2026-03-12T09:25:00Z');
    expect(isoSeconds(ms)).toBe('2026-03-11T09:29:01Z');
    expect(spaceOffsetTime(ms)).toBe('2026-03-11 09:29:01+00');
    expect(dateOnly(ms)).toBe('2026-03-11');
  });

  it('prints decimals without float noise and arrays Gamma-style', () => {
    expect(decimalString(0.1 + 0.2, 4)).toBe('0.3');
    expect(decimalString(1, 3)).toBe('1');
    expect(decimalString(0.505, 3)).toBe('0.505');
    expect(jsonArrayString(['Yes', 'No'])).toBe('["Yes", "No"]');
  });
});

describe('Gamma market shape', () => {
  const state = smallState({ marketCount: 200 });
  const books = new OrderBooks(state);
  const rendered = state.world.markets.map((market) => ({ market, json: renderMarket(state, books, market, { withEvent: true }) }));

  it('encodes outcomes, prices and token ids as JSON arrays inside strings', () => {
    for (const { market, json } of rendered) {
      expect(decodeJsonArray(json.outcomes)).toEqual(market.outcomes);
      const tokens = decodeJsonArray(json.clobTokenIds);
      expect(tokens).toHaveLength(2);
      for (const token of tokens) expect(token).toMatch(/^\d{76,78}$/);
      expect(decodeJsonArray(json.umaResolutionStatuses)).toEqual(expect.any(Array));
      expect(json.conditionId).toMatch(/^0x[0-9a-f]{64}$/);
      expect(json.id).toMatch(/^\d+$/);
      if (market.placeholder) {
        expect(json).not.toHaveProperty('outcomePrices');
        continue;
      }
      const prices = decodeJsonArray(json.outcomePrices);
      expect(prices).toHaveLength(2);
      for (const price of prices) expect(price).toMatch(/^(0|1|0\.\d+)$/);
      expect(Number(prices[0]) + Number(prices[1])).toBeCloseTo(1, 9);
    }
  });

  it('uses decimal strings for volume/liquidity and numbers for the *Num fields', () => {
    for (const { json } of rendered) {
      expect(typeof json.volume).toBe('string');
      expect(Number(json.volume)).toBe(json.volumeNum);
      expect(typeof json.volume24hr).toBe('number');
      if ('liquidity' in json) {
        expect(typeof json.liquidity).toBe('string');
        expect(Number(json.liquidity)).toBe(json.liquidityNum);
      }
      expect(typeof json.bestAsk).toBe('number');
      expect(typeof json.spread).toBe('number');
      expect(typeof json.lastTradePrice).toBe('number');
    }
  });

  it('prints each timestamp in the format upstream uses for that field', () => {
    for (const { json } of rendered) {
      expect(json.createdAt).toMatch(ISO_MICROS);
      expect(json.updatedAt).toMatch(ISO_MICROS);
      expect(json.startDate).toMatch(ISO_MICROS);
      expect(json.endDate).toMatch(ISO_SECONDS);
      expect(json.endDateIso).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      if (json.closed) expect(json.closedTime).toMatch(SPACE_OFFSET);
      else expect(json).not.toHaveProperty('closedTime');
      if ('gameStartTime' in json) expect(json.gameStartTime).toMatch(SPACE_OFFSET);
    }
  });

  it('shows resolution the way upstream does', () => {
    const resolved = rendered.filter(({ market }) => state.status[market.index]!.resolved);
    expect(resolved.length).toBeGreaterThan(5);
    for (const { market, json } of resolved) {
      expect(json.closed).toBe(true);
      expect(json.umaResolutionStatus).toBe('resolved');
      expect(json.acceptingOrders).toBe(false);
      expect(json.outcomePrices).toBe(market.winningOutcome === 0 ? '["1", "0"]' : '["0", "1"]');
      // A book resolved to "No" has no bids left: bestBid disappears, as in the katana sample.
      expect('bestBid' in json).toBe(market.winningOutcome === 0);
      expect(json).not.toHaveProperty('liquidity');
    }
    const awaiting = rendered.filter(({ market }) => state.status[market.index]!.closed && !state.status[market.index]!.resolved);
    for (const { json } of awaiting) {
      expect(json.umaResolutionStatus).toBe('proposed');
      expect(json.umaResolutionStatuses).toBe('["proposed"]');
    }
    const open = rendered.filter(({ market, json }) => !market.placeholder && !json.closed);
    for (const { json } of open) {
      expect(json.bestBid as number).toBeLessThan(json.bestAsk as number);
      expect(json.umaResolutionStatuses).toBe('[]');
    }
  });

  it('nests the event (with its series) in each market and the markets in each event', () => {
    const seriesMarket = rendered.find(({ market }) => state.world.events[market.eventIndex]!.seriesIndex !== null)!;
    const [event] = seriesMarket.json.events as Record<string, unknown>[];
    expect(event).toBeDefined();
    expect((event!.series as Record<string, unknown>[])[0]).toMatchObject({ recurrence: expect.stringMatching(/daily|hourly/) });
    const negRisk = state.world.events.find((e) => e.negRisk)!;
    const eventJson = renderEvent(state, books, negRisk, { withMarkets: true, withTags: true });
    expect(eventJson.negRiskMarketID).toBe(negRisk.negRiskMarketId);
    const markets = eventJson.markets as Record<string, unknown>[];
    expect(markets).toHaveLength(negRisk.marketIndexes.length);
    for (const market of markets) {
      expect(market.negRisk).toBe(true);
      expect(market.negRiskMarketID).toBe(negRisk.negRiskMarketId);
      expect(market).not.toHaveProperty('events');
    }
    expect((eventJson.tags as unknown[]).length).toBeGreaterThan(0);
    expect(typeof eventJson.volume).toBe('number');
    expect(typeof eventJson.liquidity).toBe('number');
  });
});

describe('Data API shapes', () => {
  const state = smallState();

  it('renders trades with every field and the right JSON types', () => {
    for (const trade of state.trades.slice(-200)) {
      const row = renderTrade(state, trade, 'taker');
      expect(Object.keys(row).sort()).toEqual(
        [
          'proxyWallet',
          'side',
          'asset',
          'conditionId',
          'size',
          'price',
          'timestamp',
          'title',
          'slug',
          'icon',
          'eventSlug',
          'outcome',
          'outcomeIndex',
          'name',
          'pseudonym',
          'bio',
          'profileImage',
          'profileImageOptimized',
          'transactionHash',
        ].sort(),
      );
      expect(row.proxyWallet).toMatch(/^0x[0-9a-f]{40}$/);
      expect(row.asset).toMatch(/^\d{76,78}$/);
      expect(row.conditionId).toMatch(/^0x[0-9a-f]{64}$/);
      expect(typeof row.size).toBe('number');
      expect(typeof row.price).toBe('number');
      expect(Number.isInteger(row.timestamp)).toBe(true);
      expect([0, 1]).toContain(row.outcomeIndex);
      const market = state.world.markets[trade.marketIndex]!;
      expect(row.asset).toBe(market.tokenIds[trade.outcomeIndex]);
      expect(row.outcome).toBe(market.outcomes[trade.outcomeIndex]);
    }
  });

  it('renders non-trade activity with upstream blanks and positions with PnL fields', () => {
    const wallet = state.world.wallets.find((w) => state.ledger.activityOf(w.index).length > 0)!;
    const row = renderLedgerActivity(state, state.ledger.activityOf(wallet.index)[0]!);
    expect(row).toMatchObject({ side: '', asset: '', outcome: '', outcomeIndex: 999, price: 0 });
    expect(['SPLIT', 'MERGE', 'REDEEM']).toContain(row.type);

    const holder = state.world.wallets.find((w) => positionRows(state, w).length > 0)!;
    for (const { json } of positionRows(state, holder)) {
      expect(json.endDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      for (const field of [
        'size',
        'avgPrice',
        'initialValue',
        'currentValue',
        'cashPnl',
        'percentPnl',
        'totalBought',
        'realizedPnl',
        'curPrice',
      ]) {
        expect(typeof json[field]).toBe('number');
      }
      expect(typeof json.eventId).toBe('string');
    }
  });
});
