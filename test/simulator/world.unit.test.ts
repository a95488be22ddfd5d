import { SimulatorState } from '../../simulator/state.js';
import { FIXED_NOW_MS, fixedClock, smallState, SMALL_WORLD } from './fixtures.js';

describe('simulator world generation', () => {
  it('is a function of seed and clock: same inputs, same world and history', () => {
    const a = smallState();
    const b = smallState();
    expect(JSON.stringify(b.world)).toBe(JSON.stringify(a.world));
    expect(b.trades).toEqual(a.trades);
    expect(b.trades.length).toBeGreaterThan(3000);
  });

  it('differs for a different seed', () => {
    const a = smallState();
    const c = smallState({ seed: SMALL_WORLD.seed + 1 });
    expect(c.world.markets.map((m) => m.conditionId)).not.toEqual(a.world.markets.map((m) => m.conditionId));
    expect(c.trades.map((t) => t.transactionHash)).not.toEqual(a.trades.map((t) => t.transactionHash));
  });

  it('builds the default world (300 markets, 200 wallets, ~30k trades)', () => {
    const state = new SimulatorState({ clock: fixedClock() });
    expect(state.world.markets).toHaveLength(300);
    expect(state.world.wallets).toHaveLength(200);
    expect(state.trades.length).toBeGreaterThan(28_500);
    expect(state.trades.length).toBeLessThan(31_500);
  });

  it('creates exactly marketCount markets with unique, well-formed identifiers', () => {
    for (const marketCount of [5, 30, 80, 300]) {
      const state = smallState({ marketCount });
      const { markets } = state.world;
      expect(markets).toHaveLength(marketCount);
      expect(new Set(markets.map((m) => m.id)).size).toBe(marketCount);
      expect(new Set(markets.map((m) => m.slug)).size).toBe(marketCount);
      expect(new Set(markets.map((m) => m.conditionId)).size).toBe(marketCount);
      expect(new Set(markets.flatMap((m) => m.tokenIds)).size).toBe(marketCount * 2);
      for (const market of markets) {
        expect(market.id).toMatch(/^\d+$/);
        expect(market.conditionId).toMatch(/^0x[0-9a-f]{64}$/);
        expect(market.questionId).toMatch(/^0x[0-9a-f]{64}$/);
        for (const token of market.tokenIds) {
          expect(token).toMatch(/^[1-9]\d{75,77}$/);
          // Token ids are uint256: a 78-digit one must stay below 2^256.
          expect(BigInt(token) < 2n ** 256n).toBe(true);
        }
      }
    }
  });

  it('assigns Gamma ids in creation order', () => {
    const { markets, events } = smallState().world;
    for (let i = 1; i < markets.length; i++) {
      expect(Number(markets[i]!.id)).toBeGreaterThan(Number(markets[i - 1]!.id));
      expect(markets[i]!.createdAtMicros).toBeGreaterThanOrEqual(markets[i - 1]!.createdAtMicros);
    }
    for (let i = 1; i < events.length; i++) expect(Number(events[i]!.id)).toBeGreaterThan(Number(events[i - 1]!.id));
  });

  it('groups markets into events, neg-risk events and recurring series', () => {
    const { world } = smallState({ marketCount: 300 });
    const negRisk = world.events.filter((e) => e.negRisk);
    expect(negRisk.length).toBeGreaterThan(3);
    for (const event of negRisk) {
      expect(event.negRiskMarketId).toMatch(/^0x[0-9a-f]{64}$/);
      expect(event.marketIndexes.length).toBeGreaterThanOrEqual(2);
    }
    for (const event of world.events) {
      for (const index of event.marketIndexes) expect(world.markets[index]!.eventIndex).toBe(event.index);
    }
    expect(world.series.map((s) => s.recurrence).sort()).toEqual(['daily', 'daily', 'hourly']);
    for (const series of world.series) {
      for (const eventIndex of series.eventIndexes) expect(world.events[eventIndex]!.seriesIndex).toBe(series.index);
    }
    // Sports moneylines use team names as outcomes.
    const games = world.markets.filter((m) => m.sportsMarketType === 'moneyline');
    expect(games.length).toBeGreaterThan(20);
    for (const game of games) expect(game.outcomes).not.toEqual(['Yes', 'No']);
    const categories = new Set(world.markets.map((m) => m.category));
    for (const category of ['Politics', 'Sports', 'Crypto', 'Economics', 'Tech', 'Culture'])
      expect(categories.has(category as never)).toBe(true);
  });

  it('mixes active, closed-awaiting-resolution and resolved markets', () => {
    const state = smallState({ marketCount: 300 });
    const open = state.status.filter((s) => !s.closed).length;
    const resolved = state.status.filter((s) => s.resolved).length;
    const awaiting = state.status.filter((s) => s.closed && !s.resolved).length;
    expect(open).toBeGreaterThan(150);
    expect(resolved).toBeGreaterThan(20);
    expect(awaiting).toBeGreaterThan(0);
    // Some open markets end within the next minutes/hours, so resolutions keep happening live.
    const now = state.nowMs();
    const endingSoon = state.world.markets.filter((m) => m.closesAtMs !== null && m.closesAtMs > now && m.closesAtMs < now + 15 * 60_000);
    expect(endingSoon.length).toBeGreaterThanOrEqual(3);
  });

  it('generates wallets with every behaviour and lowercase proxy addresses', () => {
    const { wallets } = smallState({ walletCount: 200 }).world;
    expect(new Set(wallets.map((w) => w.address)).size).toBe(200);
    for (const wallet of wallets) expect(wallet.address).toMatch(/^0x[0-9a-f]{40}$/);
    const behaviours = new Set(wallets.map((w) => w.behaviour));
    for (const behaviour of ['whale', 'scalper', 'longshot', 'informed', 'noise', 'market-maker'])
      expect(behaviours.has(behaviour as never)).toBe(true);
  });

  it('anchors history at clock - historyHours', () => {
    const state = smallState();
    expect(state.world.originMs).toBe(FIXED_NOW_MS - SMALL_WORLD.historyHours * 3_600_000);
    expect(state.world.generatedAtMs).toBe(FIXED_NOW_MS);
  });
});
