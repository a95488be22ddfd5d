/** Normalizers against Polymarket's real recorded responses (read from ../shared). */
import { normalizeGammaMarket, resolutionOf } from '../../services/ingest/normalize-market.js';
import { normalizeDataTrade, tradeId } from '../../services/ingest/normalize-trade.js';
import { STREAMS } from '../../services/read-models/registry.js';
import { readNdjsonSample, readSample } from '../support/shared-samples.js';

const NOW = Date.UTC(2026, 10, 22);

describe('Gamma markets', () => {
  const singles = [
    'gamma/market_open_btc_updown_5m_with_event_series.json',
    'gamma/market_open_negrisk_member_newsom_2028.json',
    'gamma/market_open_ceasefire_before_gta6.json',
    'gamma/market_resolved_no_katana_fdv.json',
    'gamma/market_sports_moneyline_resolved_esports.json',
    'gamma/market_by_id_resolved_tennis_recorded_cassette.json',
    'gamma/market_by_id_btc_updown_5m_near_close.json',
  ];

  test.each(singles)('%s normalizes and fits the Avro schema', (file) => {
    const result = normalizeGammaMarket(readSample(file), 'polymarket', NOW);
    if (!result.ok) throw new Error(result.reason);
    expect(STREAMS.markets.codec.violation(result.value)).toBeNull();
    expect(result.value.market_id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(result.value.outcome_token_ids.every((id) => /^\d{1,78}$/.test(id))).toBe(true);
  });

  test('every market of the recorded 5-minute BTC page and the 39-market neg-risk event normalizes', () => {
    const event = (readSample('gamma/events_by_slug_negrisk_fed_chair_39_markets.json') as Array<{ markets: unknown[] }>)[0]!;
    const markets = [...readNdjsonSample('gamma/markets_resolved_btc_updown_5m_2026-07-24.ndjson'), ...event.markets];
    const failures = markets.map((m) => normalizeGammaMarket(m, 'polymarket', NOW)).filter((r) => !r.ok);
    expect(failures).toEqual([]);
  });

  test('a resolved "No" market: resolved despite a proposed UMA history, YES price 0', () => {
    const result = normalizeGammaMarket(readSample('gamma/market_resolved_no_katana_fdv.json'), 'polymarket', NOW);
    if (!result.ok) throw new Error(result.reason);
    expect(result.value).toMatchObject({
      status: 'resolved',
      resolved_outcome: 'No',
      outcome_prices: [0, 1],
      yes_index: 0,
      best_bid: null,
    });
  });

  test('a resolved moneyline market names the winning team; YES is the first outcome', () => {
    const raw = readSample('gamma/market_sports_moneyline_resolved_esports.json') as { outcomes: string; outcomePrices: string };
    const result = normalizeGammaMarket(raw, 'polymarket', NOW);
    if (!result.ok) throw new Error(result.reason);
    const outcomes = JSON.parse(raw.outcomes) as string[];
    const winner = outcomes[(JSON.parse(raw.outcomePrices) as string[]).indexOf('1')];
    expect(result.value.status).toBe('resolved');
    expect(result.value.resolved_outcome).toBe(winner);
    expect(result.value.yes_index).toBe(0);
  });

  test('a neg-risk member is active with its event', () => {
    const result = normalizeGammaMarket(readSample('gamma/market_open_negrisk_member_newsom_2028.json'), 'polymarket', NOW);
    if (!result.ok) throw new Error(result.reason);
    expect(result.value).toMatchObject({ status: 'active', neg_risk: true, resolved_outcome: null });
    expect(result.value.event_slug).not.toBe('');
  });

  test('closed without resolution evidence is "closed", not resolved', () => {
    const raw = { ...(readSample('gamma/market_open_ceasefire_before_gta6.json') as object), closed: true };
    const result = normalizeGammaMarket(raw, 'polymarket', NOW);
    expect(result.ok && result.value.status).toBe('closed');
  });

  test('a 50-50 resolution is voided, with outcome "50-50" and no winner', () => {
    const raw = {
      ...(readSample('gamma/market_resolved_no_katana_fdv.json') as object),
      outcomePrices: '["0.5", "0.5"]',
      umaResolutionStatus: 'resolved',
    };
    const result = normalizeGammaMarket(raw, 'polymarket', NOW);
    if (!result.ok) throw new Error(result.reason);
    expect(result.value).toMatchObject({ status: 'voided', resolved_outcome: '50-50', outcome_prices: [0.5, 0.5] });
    expect(result.value.resolved_at_ms).not.toBeNull();
    expect(resolutionOf(result.value)).toMatchObject({ winning_outcome: null, winning_outcome_index: -1, payouts: [0.5, 0.5] });
  });

  test('closed at 0.5 / 0.5 without a UMA resolution stays closed (a frozen price, not a void)', () => {
    const raw = {
      ...(readSample('gamma/market_open_ceasefire_before_gta6.json') as object),
      closed: true,
      outcomePrices: '["0.5", "0.5"]',
    };
    const result = normalizeGammaMarket(raw, 'polymarket', NOW);
    expect(result.ok && result.value.status).toBe('closed');
  });

  test('empty-book markers (bestBid 0, bestAsk 1) become null, so there is no spread of 1', () => {
    const event = (
      readSample('gamma/events_by_slug_negrisk_fed_chair_39_markets.json') as Array<{ markets: Array<Record<string, unknown>> }>
    )[0]!;
    const empty = event.markets.find((m) => m.bestBid === 0 && m.bestAsk === 1)!;
    const result = normalizeGammaMarket(empty, 'polymarket', NOW);
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.best_bid).toBeNull();
    expect(result.value.best_ask).toBeNull();
  });

  test('clobTokenIds holding a JSON number that lost precision is refused with the reason', () => {
    const raw = readSample('gamma/market_open_ceasefire_before_gta6.json') as Record<string, unknown>;
    const lossy = { ...raw, clobTokenIds: `[5${'1'.repeat(77)}, "2"]` };
    const result = normalizeGammaMarket(lossy, 'polymarket', NOW);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/clobTokenIds arrived as a JSON number .* lost precision/);
  });

  test('the event id is stable for unchanged content and changes with content', () => {
    const raw = readSample('gamma/market_open_ceasefire_before_gta6.json') as Record<string, unknown>;
    const a = normalizeGammaMarket(raw, 'polymarket', NOW);
    const b = normalizeGammaMarket(raw, 'polymarket', NOW + 60_000);
    const c = normalizeGammaMarket({ ...raw, volume24hr: 123456 }, 'polymarket', NOW);
    expect(a.ok && b.ok && a.value.event_id === b.value.event_id).toBe(true);
    expect(a.ok && c.ok && a.value.event_id !== c.value.event_id).toBe(true);
  });

  test.each([
    [{}, /conditionId/],
    [{ conditionId: `0x${'a'.repeat(64)}`, outcomes: 'not json' }, /outcomes/],
    [{ conditionId: `0x${'a'.repeat(64)}`, outcomePrices: '["1.5", "0"]' }, /outcomePrices/],
    [[], /not an object/],
  ])('rejects malformed %p with a reason', (raw, reason) => {
    const result = normalizeGammaMarket(raw, 'polymarket', NOW);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });
});

describe('Data API trades', () => {
  const feeds = ['data/trades_recent_mixed_markets.json', 'data/trades_recent_large_whale_mix.json'];

  test.each(feeds)('%s: every trade normalizes and fits the Avro schema', (file) => {
    for (const raw of readSample(file) as unknown[]) {
      const result = normalizeDataTrade(raw, 'polymarket', NOW);
      if (!result.ok) throw new Error(result.reason);
      expect(STREAMS.trades.codec.violation(result.value)).toBeNull();
    }
  });

  test('hand-checked values of the first recorded trade', () => {
    const raw = (readSample('data/trades_recent_mixed_markets.json') as Array<Record<string, unknown>>)[0]!;
    const result = normalizeDataTrade(raw, 'polymarket', NOW);
    if (!result.ok) throw new Error(result.reason);
    const price = raw.price as number;
    const size = raw.size as number;
    expect(result.value).toMatchObject({
      market_id: String(raw.conditionId).toLowerCase(),
      wallet: String(raw.proxyWallet).toLowerCase(),
      side: String(raw.side).toLowerCase(),
      size,
      timestamp_ms: (raw.timestamp as number) * 1000,
    });
    expect(result.value.size_usdc).toBeCloseTo(size * price, 6);
    const isYes = String(raw.outcome).toLowerCase() === 'yes' || (String(raw.outcome).toLowerCase() !== 'no' && raw.outcomeIndex === 0);
    expect(result.value.yes_price).toBeCloseTo(isYes ? price : 1 - price, 6);
  });

  test('the trade id is deterministic and depends on the fill', () => {
    const parts = { txHash: `0x${'ab'.repeat(32)}`, assetId: '123', wallet: `0x${'cd'.repeat(20)}`, side: 'buy', size: 10, price: 0.5 };
    expect(tradeId(parts)).toBe(tradeId({ ...parts, txHash: parts.txHash.toUpperCase().replace('0X', '0x') }));
    expect(tradeId(parts)).not.toBe(tradeId({ ...parts, size: 11 }));
  });

  test('a NO fill at 0.3 is a YES price of 0.7', () => {
    const raw = {
      proxyWallet: `0x${'1'.repeat(40)}`,
      side: 'BUY',
      asset: '42',
      conditionId: `0x${'2'.repeat(64)}`,
      size: 10,
      price: 0.3,
      timestamp: 1774166009,
      title: 'T',
      outcome: 'No',
      outcomeIndex: 1,
      transactionHash: `0x${'3'.repeat(64)}`,
    };
    const result = normalizeDataTrade(raw, 'simulator', NOW);
    expect(result.ok && result.value.yes_price).toBeCloseTo(0.7, 9);
  });

  test.each([
    [{ price: 'abc' }, /price/],
    [{ price: 1.5 }, /price out of range/],
    [{ conditionId: undefined }, /conditionId/],
    [{ side: 'HOLD' }, /side/],
    [{ size: 0 }, /size/],
    [{ timestamp: 'soon' }, /timestamp/],
    [{ proxyWallet: '0x123' }, /proxyWallet/],
    // A 78-digit token id sent as a JSON number reaches us already rounded.
    [{ asset: 5.13e76 }, /asset arrived as a JSON number \(5\.13e\+76\) beyond 2\^53 and lost precision/],
    [{ asset: 123456789012345680 }, /lost precision/],
  ])('rejects a malformed trade %p with a reason', (override, reason) => {
    const good = {
      proxyWallet: `0x${'1'.repeat(40)}`,
      side: 'BUY',
      asset: '42',
      conditionId: `0x${'2'.repeat(64)}`,
      size: 10,
      price: 0.3,
      timestamp: 1774166009,
      title: 'T',
      outcome: 'Yes',
      outcomeIndex: 0,
      transactionHash: `0x${'3'.repeat(64)}`,
    };
    const result = normalizeDataTrade({ ...good, ...override }, 'polymarket', NOW);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });
});
