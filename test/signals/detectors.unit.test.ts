/** Signal detection and payload shapes (docs/WEBHOOKS.md's field lists), on hand-built events. */
import { wants } from '../../services/signals/matching.js';
import { largeTrade, marketResolved, priceSignal, tradeExecuted } from '../../services/signals/payloads.js';
import { PriceWindows } from '../../services/signals/price-windows.js';
import type { TradeExecuted } from '../../services/events/types.js';
import { marketTransition } from '../support/events.js';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MARKET = `0x${'a'.repeat(64)}`;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function trade(n: number, yes: number, atMs: number, overrides: Partial<TradeExecuted> = {}): TradeExecuted {
  return {
    event_id: `t${n}`,
    source: 'simulator',
    market_id: MARKET,
    market_title: 'Will it rain?',
    asset_id: '1',
    wallet: `0x${'b'.repeat(40)}`,
    side: 'buy',
    outcome: 'Yes',
    outcome_index: 0,
    price: yes,
    yes_price: yes,
    size: 100,
    size_usdc: 100 * yes,
    timestamp_ms: atMs,
    tx_hash: `0x${'c'.repeat(64)}`,
    ingested_at_ms: atMs,
    ...overrides,
  };
}

test('trade.executed carries exactly the documented fields plus event, id and source', () => {
  const payload = tradeExecuted(trade(1, 0.42, T0 + 7));
  expect(Object.keys(payload).sort()).toEqual(
    [
      'event',
      'id',
      'market_id',
      'market_title',
      'outcome',
      'price',
      'side',
      'size_usdc',
      'source',
      'timestamp',
      'trade_id',
      'wallet',
    ].sort(),
  );
  expect(payload).toMatchObject({
    event: 'trade.executed',
    trade_id: 't1',
    outcome: 'YES',
    side: 'buy',
    price: 0.42,
    timestamp: '2026-11-21T12:00:00.007Z',
  });
  expect(payload.id).toMatch(/^evt_[0-9a-f]{32}$/);
  expect(tradeExecuted(trade(1, 0.42, T0)).id).toBe(payload.id); // deterministic
});

test('trader.large_trade = trade.executed fields + threshold + trader context', () => {
  const payload = largeTrade(trade(2, 0.5, T0), 10_000, {
    trades_24h: 3,
    volume_24h_usdc: 1200,
    markets_24h: 2,
    largest_trade_24h_usdc: 900,
  });
  expect(payload).toMatchObject({
    event: 'trader.large_trade',
    trade_id: 't2',
    threshold_usdc: 10_000,
    trader: { wallet: `0x${'b'.repeat(40)}`, trades_24h: 3 },
  });
  expect(payload.id).not.toBe(tradeExecuted(trade(2, 0.5, T0)).id);
});

test('a YES move beyond the threshold within the window is one signal, reported against the farthest price', () => {
  const windows = new PriceWindows(15 * 60_000, 5);
  expect(windows.observe(trade(1, 0.5, T0))).toBeNull();
  expect(windows.observe(trade(2, 0.51, T0 + 60_000))).toBeNull(); // +2%
  const move = windows.observe(trade(3, 0.53, T0 + 120_000)); // +6% against 0.50
  expect(move).toMatchObject({ yes_price: 0.53, prev_price: 0.5, change_pct: 6, direction: 'up' });
  // The window restarted at 0.53: a small wiggle is quiet, a drop beyond 5% is a new signal.
  expect(windows.observe(trade(4, 0.52, T0 + 180_000))).toBeNull();
  expect(windows.observe(trade(5, 0.5, T0 + 240_000))).toMatchObject({ prev_price: 0.53, direction: 'down', change_pct: -5.66 });
  const payload = priceSignal(move!);
  expect(Object.keys(payload).sort()).toEqual(
    ['change_pct', 'direction', 'event', 'id', 'market_id', 'market_title', 'prev_price', 'source', 'timestamp', 'yes_price'].sort(),
  );
  expect(payload.timestamp).toMatch(ISO_MS);
});

test('moves slower than the window, exactly at the threshold, or out of order are not signals', () => {
  const windows = new PriceWindows(60_000, 5);
  expect(windows.observe(trade(1, 0.5, T0))).toBeNull();
  expect(windows.observe(trade(2, 0.52, T0 + 50_000))).toBeNull(); // +4%
  expect(windows.observe(trade(3, 0.545, T0 + 120_000))).toBeNull(); // 0.50 left the window; +4.8% against 0.52
  expect(windows.observe(trade(4, 0.4, T0 + 10_000))).toBeNull(); // older than the newest: backfill, ignored
  const exact = new PriceWindows(60_000, 5);
  exact.observe(trade(5, 0.5, T0));
  expect(exact.observe(trade(6, 0.525, T0 + 1))).toBeNull(); // exactly 5%: "more than" is strict
  expect(exact.observe(trade(7, 0.5251, T0 + 2))).not.toBeNull();
});

test('a snapshot restores the windows after a failed batch, so the move is detected again', () => {
  const windows = new PriceWindows(60_000, 5);
  windows.observe(trade(1, 0.5, T0));
  const before = windows.snapshot([MARKET]);
  expect(windows.observe(trade(2, 0.6, T0 + 1))).not.toBeNull();
  windows.restore(before);
  expect(windows.observe(trade(2, 0.6, T0 + 1))).not.toBeNull();
});

test('market.resolved payload: outcome, final prices, resolution time, one id per resolution', () => {
  const resolved = marketTransition({
    market_id: MARKET,
    title: 'Will it rain?',
    kind: 'resolved',
    from_state: 'closed',
    to_state: 'resolved',
    resolution_number: 1,
    resolved_outcome: 'No',
    winning_outcome_index: 1,
    payouts: [0, 1],
    final_yes_price: 0,
    final_no_price: 1,
    occurred_at_ms: T0,
    observed_at_ms: T0 + 5,
    notify: true,
  });
  const payload = marketResolved(resolved);
  expect(payload).toMatchObject({
    event: 'market.resolved',
    resolved_outcome: 'NO',
    final_yes_price: 0,
    final_no_price: 1,
    status: 'resolved',
    payouts: [0, 1],
    timestamp: '2026-11-21T12:00:00.000Z',
  });
  // The same resolution re-emitted (another revision) keeps its id; a correction gets a new one.
  expect(marketResolved({ ...resolved, revision: 7 }).id).toBe(payload.id);
  expect(marketResolved({ ...resolved, resolution_number: 2, kind: 'corrected' }).id).not.toBe(payload.id);
});

test('market.resolved of a void: "50-50" and 0.5 / 0.5', () => {
  const voided = marketTransition({
    market_id: MARKET,
    kind: 'voided',
    to_state: 'voided',
    resolution_number: 1,
    resolved_outcome: '50-50',
    payouts: [0.5, 0.5],
    final_yes_price: 0.5,
    final_no_price: 0.5,
    notify: true,
  });
  expect(marketResolved(voided)).toMatchObject({ resolved_outcome: '50-50', final_yes_price: 0.5, final_no_price: 0.5, status: 'voided' });
});

test('subscription matching: types, filters, and only events logged after the subscription', () => {
  const subscription = {
    events: ['trade.executed', 'market.price_signal'] as any,
    filters: { market_ids: [MARKET.toUpperCase().replace('0X', '0x')], min_size_usdc: 50, min_change_pct: 10 },
    created_at: new Date(T0),
  };
  const facts = { type: 'trade.executed', market_id: MARKET, wallet: '0x1', size_usdc: 60, logged_at_ms: T0 };
  expect(wants(subscription, facts)).toBe(true);
  expect(wants(subscription, { ...facts, size_usdc: 49 })).toBe(false);
  expect(wants(subscription, { ...facts, market_id: `0x${'f'.repeat(64)}` })).toBe(false);
  expect(wants(subscription, { ...facts, logged_at_ms: T0 - 1 })).toBe(false);
  expect(wants(subscription, { ...facts, type: 'market.resolved' })).toBe(false);
  expect(wants(subscription, { type: 'market.price_signal', market_id: MARKET, change_pct: -12, logged_at_ms: T0 })).toBe(true);
  expect(wants(subscription, { type: 'market.price_signal', market_id: MARKET, change_pct: 6, logged_at_ms: T0 })).toBe(false);
  const byWallet = { events: ['trade.executed'] as any, filters: { wallets: ['0xAB'] }, created_at: new Date(T0) };
  expect(wants(byWallet, { ...facts, wallet: '0xab' })).toBe(true);
  expect(wants(byWallet, { ...facts, wallet: '0xcd' })).toBe(false);
});
