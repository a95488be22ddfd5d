import { SimulatorState } from '../../simulator/state.js';
import { tokenKey } from '../../simulator/ledger.js';
import { fillAmounts } from '../../simulator/fill-amounts.js';
import type { SimTrade } from '../../simulator/trades.js';
import { FIXED_NOW_MS, fixedClock, smallState, SMALL_WORLD } from './fixtures.js';

const DAY_MS = 86_400_000;

function notional(trades: readonly SimTrade[]): number {
  return trades.reduce((sum, trade) => sum + trade.size * trade.price, 0);
}

describe('simulator trade tape', () => {
  const state = smallState();

  it('spreads the historic trades over the history window, oldest first, before the clock', () => {
    const originSeconds = state.world.originMs / 1000;
    expect(state.trades.length).toBeGreaterThan(SMALL_WORLD.historicTrades * 0.9);
    expect(state.trades.length).toBeLessThan(SMALL_WORLD.historicTrades * 1.1);
    state.trades.forEach((trade, index) => {
      expect(trade.sequence).toBe(index);
      expect(trade.timestamp).toBeGreaterThanOrEqual(originSeconds);
      expect(trade.timestamp).toBeLessThan(FIXED_NOW_MS / 1000);
      if (index > 0) expect(trade.timestamp).toBeGreaterThanOrEqual(state.trades[index - 1]!.timestamp);
    });
  });

  it('gives every fill a unique 0x + 64 hex transaction hash and sane numbers', () => {
    expect(new Set(state.trades.map((t) => t.transactionHash)).size).toBe(state.trades.length);
    for (const trade of state.trades) {
      expect(trade.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(trade.price).toBeGreaterThan(0);
      expect(trade.price).toBeLessThan(1);
      expect(trade.size).toBeGreaterThan(0);
      expect(['BUY', 'SELL']).toContain(trade.side);
      expect(Number.isInteger(trade.timestamp)).toBe(true);
    }
  });

  it('only trades markets while they accept orders', () => {
    for (const trade of state.trades) {
      const market = state.world.markets[trade.marketIndex]!;
      expect(market.placeholder).toBe(false);
      expect(trade.timestamp * 1000).toBeGreaterThanOrEqual(market.acceptingOrdersFromMs);
      if (market.closesAtMs !== null) expect(trade.timestamp * 1000).toBeLessThan(market.closesAtMs);
    }
  });

  it('prints fills at the touch: YES buys at the ask, NO trades mirror the YES book', () => {
    let checked = 0;
    for (const trade of state.trades.slice(-500)) {
      const market = state.world.markets[trade.marketIndex]!;
      const quote = state.paths.quoteAt(market, trade.timestamp * 1000);
      const n = quote.ticksPerUnit;
      const touch =
        trade.outcomeIndex === 0
          ? trade.side === 'BUY'
            ? quote.askTicks
            : quote.bidTicks
          : trade.side === 'BUY'
            ? n - quote.bidTicks
            : n - quote.askTicks;
      // Sweeps pay up to one tick more (buys) or less (sells) on part of the size.
      const worst = trade.side === 'BUY' ? touch + 1 : touch - 1;
      const low = Math.min(touch, worst) / n - 1e-9;
      const high = Math.max(touch, worst) / n + 1e-9;
      expect(trade.price).toBeGreaterThanOrEqual(low);
      expect(trade.price).toBeLessThanOrEqual(high);
      checked++;
    }
    expect(checked).toBe(500);
  });

  it('concentrates volume on a few markets (power law), so sorting by volume is meaningful', () => {
    const big = new SimulatorState({ clock: fixedClock(), marketCount: 300, historicTrades: 20_000 });
    const volumes = big.world.markets.map((m) => big.totalVolume(m.index)).sort((a, b) => b - a);
    const total = volumes.reduce((a, b) => a + b, 0);
    const top10Percent = volumes.slice(0, 30).reduce((a, b) => a + b, 0);
    expect(top10Percent / total).toBeGreaterThan(0.4);
  });

  it('keeps volume24hr and total volume equal to the sums over the tape', () => {
    for (const market of state.world.markets) {
      const trades = state.trades.filter((t) => t.marketIndex === market.index);
      const recent = trades.filter((t) => t.timestamp * 1000 >= FIXED_NOW_MS - DAY_MS);
      expect(state.totalVolume(market.index)).toBeCloseTo(notional(trades), 6);
      expect(state.volume24hr(market.index)).toBeCloseTo(notional(recent), 6);
    }
  });

  it('never lets a wallet sell more than it holds, taker or maker (sells are covered by holdings or a split)', () => {
    // Replayed in micro-units, as the chain moves them: every balance stays >= 0 and ends at the ledger's.
    const replay = new Map<string, bigint>();
    const ledgerRows = state.world.wallets.flatMap((w) => state.ledger.activityOf(w.index));
    const events = [
      ...state.trades.map((t) => ({
        order: t.sequence * 2 + 1,
        apply: () => {
          const { shares, takerFee, takerFeeAsset } = fillAmounts(t, t.timestamp * 1000 >= state.v2FromMs);
          // A v1 buy's fee is taken out of the shares the taker receives.
          apply(
            t.walletIndex,
            t.marketIndex,
            t.outcomeIndex,
            t.side === 'BUY' ? shares - (takerFeeAsset === 'shares' ? takerFee : 0n) : -shares,
          );
          // The resting order's owner takes the other side, from shares it holds too.
          if (t.makerWalletIndex >= 0) apply(t.makerWalletIndex, t.marketIndex, t.outcomeIndex, t.side === 'BUY' ? -shares : shares);
        },
      })),
      ...ledgerRows.map((e) => ({
        order: e.tradesBefore * 2 + e.sequence / 1e9,
        apply: () => {
          if (e.type === 'SPLIT') for (const o of [0, 1] as const) apply(e.walletIndex, e.marketIndex, o, e.shares);
          if (e.type === 'MERGE') for (const o of [0, 1] as const) apply(e.walletIndex, e.marketIndex, o, -e.shares);
          if (e.type === 'REDEEM') {
            // A redemption burns the whole balance of both outcomes: exactly what the replay holds.
            const market = state.world.markets[e.marketIndex]!;
            const burned = e.voidedHeld ?? (market.winningOutcome === 0 ? [e.shares, e.losingShares!] : [e.losingShares!, e.shares]);
            for (const o of [0, 1] as const) {
              expect(burned[o]).toBe(replay.get(`${e.walletIndex}:${tokenKey(e.marketIndex, o)}`) ?? 0n);
              apply(e.walletIndex, e.marketIndex, o, -burned[o]!);
            }
          }
        },
      })),
    ].sort((a, b) => a.order - b.order);
    function apply(wallet: number, market: number, outcome: 0 | 1, delta: bigint) {
      const key = `${wallet}:${tokenKey(market, outcome)}`;
      const next = (replay.get(key) ?? 0n) + delta;
      expect(next).toBeGreaterThanOrEqual(0n);
      replay.set(key, next);
    }
    for (const event of events) event.apply();
    // The replay ends where the ledger is, to the micro-unit.
    for (const wallet of state.world.wallets) {
      for (const [token, holding] of state.ledger.holdingsOf(wallet.index)) {
        expect(replay.get(`${wallet.index}:${token}`) ?? 0n).toBe(holding.shares);
      }
    }
    expect(ledgerRows.some((e) => e.type === 'SPLIT')).toBe(true);
    expect(ledgerRows.some((e) => e.type === 'MERGE')).toBe(true);
    expect(ledgerRows.some((e) => e.type === 'REDEEM')).toBe(true);
  });

  it('gives behaviours their signature', () => {
    const big = new SimulatorState({ clock: fixedClock(), historicTrades: 20_000 });
    const byBehaviour = (behaviour: string) => big.trades.filter((t) => big.world.wallets[t.walletIndex]!.behaviour === behaviour);
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

    const whales = byBehaviour('whale');
    const scalpers = byBehaviour('scalper');
    expect(median(whales.map((t) => t.size))).toBeGreaterThan(20 * median(scalpers.map((t) => t.size)));
    expect(scalpers.length).toBeGreaterThan(whales.length * 5);
    expect(scalpers.some((t) => t.side === 'SELL')).toBe(true);

    const longShots = byBehaviour('longshot').filter((t) => t.side === 'BUY');
    const cheap = longShots.filter((t) => t.price < 0.15);
    expect(cheap.length / longShots.length).toBeGreaterThan(0.6);

    const informedOnResolved = byBehaviour('informed').filter((t) => big.status[t.marketIndex]!.resolved && t.side === 'BUY');
    const onWinner = informedOnResolved.filter((t) => t.outcomeIndex === big.world.markets[t.marketIndex]!.winningOutcome);
    expect(informedOnResolved.length).toBeGreaterThan(20);
    expect(onWinner.length / informedOnResolved.length).toBeGreaterThan(0.8);

    expect(byBehaviour('market-maker')).toHaveLength(0);
  });
});

describe('simulator live generation and resolution', () => {
  it('generates the same trades however advance() is split', () => {
    const once = smallState();
    const stepwise = smallState();
    once.advance(60_000);
    for (let i = 0; i < 60; i++) stepwise.advance(1000);
    expect(stepwise.trades).toEqual(once.trades);
    expect(once.trades.length).toBeGreaterThan(smallState().trades.length);
  });

  it('generates live trades at about tradesPerSecond, stamped by the clock', () => {
    const state = smallState({ tradesPerSecond: 5 });
    const before = state.trades.length;
    state.advance(120_000);
    const live = state.trades.slice(before);
    expect(live.length).toBeGreaterThan(450);
    expect(live.length).toBeLessThan(750);
    for (const trade of live) {
      expect(trade.timestamp).toBeGreaterThanOrEqual(FIXED_NOW_MS / 1000);
      expect(trade.timestamp).toBeLessThan(FIXED_NOW_MS / 1000 + 120);
    }
  });

  it('follows a moving injected clock without advance()', () => {
    let now = FIXED_NOW_MS;
    const state = new SimulatorState({ ...SMALL_WORLD, clock: () => now });
    const before = state.trades.length;
    now += 30_000;
    state.sync();
    expect(state.trades.length).toBeGreaterThan(before);
    expect(state.nowMs()).toBe(now);
  });

  it('closes and resolves a market once the clock passes its end date, and stops trading it', () => {
    const state = smallState();
    const now = state.nowMs();
    const target = state.world.markets
      .filter((m) => m.closesAtMs !== null && m.closesAtMs > now && m.resolvesOnClose)
      .sort((a, b) => a.closesAtMs! - b.closesAtMs!)[0]!;
    expect(state.status[target.index]).toEqual({ closed: false, resolved: false, closedAtMs: null });

    state.advance(target.closesAtMs! - now - 1000);
    expect(state.status[target.index]!.closed).toBe(false);
    state.advance(1000);
    expect(state.status[target.index]).toEqual({ closed: true, resolved: true, closedAtMs: target.closesAtMs });
    expect(state.isAcceptingOrders(target.index)).toBe(false);
    expect(state.outcomePrice(target.index, target.winningOutcome)).toBe(1);
    expect(state.outcomePrice(target.index, target.winningOutcome === 0 ? 1 : 0)).toBe(0);

    const tradesBefore = state.tradesOfMarket(target.index).length;
    state.advance(10 * 60_000);
    expect(state.tradesOfMarket(target.index).length).toBe(tradesBefore);
  });
});
