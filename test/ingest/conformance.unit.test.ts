/**
 * Conformance: every recorded upstream response in ../shared/upstream-samples (read in place, never
 * copied) parses and normalizes with zero unexpected errors, plus hand-checked values for a resolved
 * market, a neg-risk market, an empty-sided book and a price_change burst replayed over a snapshot.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalBooks } from '../../services/ingest/book-state.js';
import { normalizeGammaEvent, normalizeGammaTag } from '../../services/ingest/normalize-catalog.js';
import {
  normalizeBook,
  normalizeClobMarket,
  normalizePricesHistory,
  normalizeRestLastTradePrice,
  normalizeWsMarketMessage,
  wsFrameMessages,
} from '../../services/ingest/normalize-clob.js';
import { leaderboardWallet, normalizeActivity, normalizePosition } from '../../services/ingest/normalize-data.js';
import { normalizeGammaMarket, resolutionOf } from '../../services/ingest/normalize-market.js';
import { normalizeDataTrade } from '../../services/ingest/normalize-trade.js';
import type { Parsed } from '../../services/ingest/parse.js';

const SAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/upstream-samples');
const NOW = Date.UTC(2026, 6, 1);
const IDS = { marketId: `0x${'a'.repeat(64)}`, assetId: '1234' };

function records(file: string): unknown[] {
  const text = fs.readFileSync(path.join(SAMPLES, file), 'utf8');
  return file.endsWith('.ndjson')
    ? text
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l))
    : [JSON.parse(text)];
}
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** What each file is, and how its records normalize. `null`: a shape we do not ingest (user channel). */
function normalizerFor(file: string): ((record: unknown) => Parsed<unknown>[]) | null {
  const name = path.basename(file);
  if (file.startsWith('ws/user_') || name === 'data_trade_record_trump2024_taker.json') return null; // authenticated user channel
  if (file.startsWith('ws/')) return (r) => wsFrameMessages(r).map((m) => normalizeWsMarketMessage(m, 'polymarket', NOW));
  if (name === 'tags_list.json') return (r) => asList(r).map((t) => normalizeGammaTag(t, 'polymarket', NOW));
  if (name.startsWith('events_'))
    return (r) =>
      asList(r).flatMap((e) => [
        normalizeGammaEvent(e, 'polymarket', NOW),
        ...(e as { markets: unknown[] }).markets.map((m) => normalizeGammaMarket(m, 'polymarket', NOW)),
      ]);
  if (name.startsWith('public_search'))
    return (r) => (r as { events: unknown[] }).events.flatMap((e) => [normalizeGammaEvent(e, 'polymarket', NOW)]);
  if (file.startsWith('gamma/')) return (r) => [normalizeGammaMarket(r, 'polymarket', NOW)];
  if (name.startsWith('book_')) return (r) => [normalizeBook(r, 'polymarket', NOW, 'clob-rest')];
  if (name.startsWith('last_trade_price')) return (r) => [normalizeRestLastTradePrice(r, IDS, 'polymarket', NOW)];
  if (name.startsWith('prices_history')) return (r) => [normalizePricesHistory(r, IDS, 'polymarket', NOW)];
  if (name.startsWith('markets_page')) return (r) => (r as { data: unknown[] }).data.map((m) => normalizeClobMarket(m, 'polymarket', NOW));
  if (name.startsWith('market_')) return (r) => [normalizeClobMarket(r, 'polymarket', NOW)];
  if (name.startsWith('trades_')) return (r) => asList(r).map((t) => normalizeDataTrade(t, 'polymarket', NOW));
  if (name.startsWith('activity_')) return (r) => asList(r).map((a) => normalizeActivity(a, 'polymarket', NOW));
  if (name.startsWith('closed_positions')) return (r) => asList(r).map((p) => normalizePosition(p, 'polymarket', NOW, { closed: true }));
  if (name.startsWith('positions_')) return (r) => asList(r).map((p) => normalizePosition(p, 'polymarket', NOW));
  if (name.startsWith('leaderboard')) return (r) => asList(r).map(leaderboardWallet);
  throw new Error(`no normalizer for ${file}: add one`);
}

const sampleFiles = ['gamma', 'clob', 'data', 'ws'].flatMap((dir) => fs.readdirSync(path.join(SAMPLES, dir)).map((f) => `${dir}/${f}`));

describe('conformance with recorded upstream responses', () => {
  test('the samples folder is there and complete enough to mean something', () => {
    expect(sampleFiles.length).toBeGreaterThanOrEqual(40);
  });

  test.each(sampleFiles)('%s normalizes without unexpected errors', (file) => {
    const normalize = normalizerFor(file);
    if (normalize === null) {
      // User-channel shapes: recognised, deliberately not ingested; they must still be JSON.
      expect(records(file).length).toBeGreaterThan(0);
      return;
    }
    const results = records(file).flatMap(normalize);
    expect(results.length).toBeGreaterThan(0);
    const failures = results.filter((r) => !r.ok).map((r) => (r as { reason: string }).reason);
    expect(failures).toEqual([]);
  });

  test('resolved market: status, winner, payouts and resolution time (hand-checked)', () => {
    const [raw] = records('gamma/market_resolved_no_katana_fdv.json');
    const market = normalizeGammaMarket(raw, 'polymarket', NOW);
    if (!market.ok) throw new Error(market.reason);
    expect(market.value.status).toBe('resolved');
    expect(market.value.resolved_outcome).toBe('No');
    expect(market.value.uma_resolution_status).toBe('resolved');
    expect(market.value.best_bid).toBeNull(); // no bestBid key upstream
    const resolution = resolutionOf(market.value)!;
    expect(resolution.event_id).toBe('0x8ccc3f4951ff02c1d34b87988752b4444ad17228732780a6cf22afefe8478bb6:resolved');
    expect(resolution.winning_outcome_index).toBe(1);
    expect(resolution.payouts).toEqual([0, 1]);
    expect(resolution.resolved_at_ms).toBe(Date.UTC(2026, 2, 19, 23, 20, 15));
  });

  test('neg-risk market: flag, shared neg-risk id, prices (hand-checked)', () => {
    const [raw] = records('gamma/market_open_negrisk_member_newsom_2028.json');
    const market = normalizeGammaMarket(raw, 'polymarket', NOW);
    if (!market.ok) throw new Error(market.reason);
    expect(market.value.neg_risk).toBe(true);
    expect(market.value.neg_risk_market_id).toBe('0x2c3d7e0eee6f058be3006baabf0d54a07da254ba47fe6e3e095e7990c7814700');
    expect(market.value.outcome_prices).toEqual([0.2325, 0.7675]);
    expect(market.value.status).toBe('active');
    expect(resolutionOf(market.value)).toBeNull();
  });

  test('empty-sided book: no bids, best ask is the minimum, id is token + hash (hand-checked)', () => {
    const [raw] = records('clob/book_no_bids_fed_chair_member.json');
    const book = normalizeBook(raw, 'polymarket', NOW, 'clob-rest');
    if (!book.ok) throw new Error(book.reason);
    expect(book.value.bids).toEqual([]);
    expect(book.value.best_bid).toBeNull();
    expect(book.value.best_ask).toBe(0.001);
    expect(book.value.asks[0]).toEqual({ price: 0.001, size: 346771.81 });
    expect(book.value.event_id).toBe(`${book.value.asset_id}:a7f8270cd850aa43774ba3d7a3482c8d7c51b438`);
  });

  test('price_change burst replayed over its book snapshot stays consistent with upstream best bid/ask', () => {
    const [bookRaw, ...changes] = records('ws/market_book_then_price_change_burst_part1.ndjson');
    const books = new LocalBooks();
    const snapshot = normalizeWsMarketMessage(bookRaw, 'polymarket', NOW);
    if (!snapshot.ok || snapshot.value.type !== 'book') throw new Error('book did not normalize');
    const asset = snapshot.value.book.asset_id;
    expect(snapshot.value.book.best_bid).toBe(0.3); // last element of the ascending bids
    expect(snapshot.value.book.best_ask).toBe(0.397); // last element of the descending asks
    books.applySnapshot(snapshot.value.book);
    let deltas = 0;
    for (const raw of changes) {
      const message = normalizeWsMarketMessage(raw, 'polymarket', NOW);
      if (!message.ok || message.value.type !== 'price_change') throw new Error('price_change did not normalize');
      deltas += message.value.deltas.length;
      const outcomes = books.applyFrame(message.value.deltas);
      expect(outcomes.get(asset)).toBe('applied');
      // The other token of the market has no snapshot in this capture: it must be resynced, not guessed.
      for (const [other, outcome] of outcomes) if (other !== asset) expect(outcome).toBe('no-snapshot');
    }
    expect(deltas).toBe(14);
    const final = books.snapshot(asset, NOW)!;
    const lastChange = (
      changes.at(-1) as { price_changes: Array<{ asset_id: string; best_bid: string; best_ask: string; hash: string }> }
    ).price_changes.find((c) => c.asset_id === asset)!;
    expect(final.best_bid).toBe(Number(lastChange.best_bid));
    expect(final.best_ask).toBe(Number(lastChange.best_ask));
    expect(final.hash).toBe(lastChange.hash);
  });

  test('a dropped price_change is detected as a gap', () => {
    const [bookRaw, first, second] = records('ws/market_book_then_price_change_burst_part1.ndjson');
    const books = new LocalBooks();
    const snapshot = normalizeWsMarketMessage(bookRaw, 'polymarket', NOW);
    if (!snapshot.ok || snapshot.value.type !== 'book') throw new Error('book did not normalize');
    books.applySnapshot(snapshot.value.book);
    void first; // dropped on purpose: its BUY at 0.301 never reaches us
    const message = normalizeWsMarketMessage(second, 'polymarket', NOW);
    if (!message.ok || message.value.type !== 'price_change') throw new Error('price_change did not normalize');
    const outcome = books.applyFrame(message.value.deltas).get(snapshot.value.book.asset_id);
    expect(outcome === 'gap' || outcome === 'applied').toBe(true);
    expect(books.isFresh(snapshot.value.book.asset_id)).toBe(outcome === 'applied');
  });
});
