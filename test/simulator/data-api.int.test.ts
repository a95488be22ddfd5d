import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { FIXED_NOW_MS, SMALL_WORLD, fixedClock } from './fixtures.js';
import { getJson, type Row } from './http.js';

const TRADE_FIELD_TYPES: Record<string, string> = {
  proxyWallet: 'string',
  side: 'string',
  asset: 'string',
  conditionId: 'string',
  size: 'number',
  price: 'number',
  timestamp: 'number',
  title: 'string',
  slug: 'string',
  icon: 'string',
  eventSlug: 'string',
  outcome: 'string',
  outcomeIndex: 'number',
  name: 'string',
  pseudonym: 'string',
  bio: 'string',
  profileImage: 'string',
  profileImageOptimized: 'string',
  transactionHash: 'string',
};

describe('upstream simulator over HTTP: Data API', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ ...SMALL_WORLD, port: 0, clock: fixedClock(), tickIntervalMs: 60_000 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('returns a bare array of taker trades with Data API types, newest first', async () => {
    const response = await getJson<Row[]>(`${sim.dataUrl}/trades`);
    expect(response.status).toBe(200);
    expect(Array.isArray(response.body)).toBe(true);
    expect(response.body).toHaveLength(100);
    for (const row of response.body) {
      for (const [field, type] of Object.entries(TRADE_FIELD_TYPES)) expect(typeof row[field]).toBe(type);
      expect(Number.isInteger(row.timestamp)).toBe(true);
      expect(row.side).toMatch(/^(BUY|SELL)$/);
    }
    const newest = sim.state.trades.at(-1)!;
    expect(response.body[0]!.transactionHash).toBe(newest.transactionHash);
  });

  it('walks every trade exactly once with offset/limit, newest first', async () => {
    const seen: Row[] = [];
    for (let offset = 0; offset <= 10_000; offset += 1000) {
      const page = await getJson<Row[]>(`${sim.dataUrl}/trades?limit=1000&offset=${offset}`);
      seen.push(...page.body);
      if (page.body.length < 1000) break;
    }
    expect(seen).toHaveLength(sim.state.trades.length);
    expect(new Set(seen.map((t) => t.transactionHash)).size).toBe(seen.length);
    for (let i = 1; i < seen.length; i++) expect(seen[i - 1]!.timestamp as number).toBeGreaterThanOrEqual(seen[i]!.timestamp as number);
    expect(seen.map((t) => t.transactionHash)).toEqual([...sim.state.trades].reverse().map((t) => t.transactionHash));
  });

  it('enforces the documented limits with 400 {error}', async () => {
    for (const query of ['offset=10001', 'limit=10001', 'limit=-1', 'side=HOLD', 'takerOnly=yes', 'market=0x1234', 'user=bob']) {
      const response = await getJson<Row>(`${sim.dataUrl}/trades?${query}`);
      expect(response.status).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect((await getJson<Row[]>(`${sim.dataUrl}/trades?limit=1&offset=10000`)).status).toBe(200);
  });

  it('filters by market (comma-separated condition ids), user and side', async () => {
    const [a, b] = [...sim.state.world.markets].sort((x, y) => sim.state.totalVolume(y.index) - sim.state.totalVolume(x.index));
    const both = await getJson<Row[]>(`${sim.dataUrl}/trades?limit=10000&market=${a!.conditionId},${b!.conditionId}`);
    const expected = sim.state.trades.filter((t) => t.marketIndex === a!.index || t.marketIndex === b!.index);
    expect(both.body).toHaveLength(expected.length);
    expect(both.body.every((t) => t.conditionId === a!.conditionId || t.conditionId === b!.conditionId)).toBe(true);

    const wallet = sim.state.world.wallets[sim.state.trades.at(-1)!.walletIndex]!;
    const mine = await getJson<Row[]>(`${sim.dataUrl}/trades?limit=10000&user=${wallet.address.toUpperCase().replace('0X', '0x')}`);
    expect(mine.body.length).toBe(sim.state.trades.filter((t) => t.walletIndex === wallet.index).length);
    expect(mine.body.every((t) => t.proxyWallet === wallet.address)).toBe(true);

    const sells = await getJson<Row[]>(`${sim.dataUrl}/trades?limit=500&side=SELL`);
    expect(sells.body.length).toBeGreaterThan(0);
    expect(sells.body.every((t) => t.side === 'SELL')).toBe(true);
  });

  it('adds maker fills only when takerOnly=false', async () => {
    const both = await getJson<Row[]>(`${sim.dataUrl}/trades?limit=10&takerOnly=false`);
    expect(both.body[0]!.transactionHash).toBe(both.body[1]!.transactionHash);
    expect(both.body[0]!.side).not.toBe(both.body[1]!.side);
    expect(both.body[0]!.proxyWallet).not.toBe(both.body[1]!.proxyWallet);
  });

  it('keeps volume24hr consistent with the trades served', async () => {
    const markets = await getJson<Row[]>(`${sim.gammaUrl}/markets?order=volume24hr&limit=5`);
    for (const market of markets.body) {
      const trades = await getJson<Row[]>(`${sim.dataUrl}/trades?limit=10000&market=${market.conditionId}`);
      const since = FIXED_NOW_MS / 1000 - 86_400;
      const recent = trades.body.filter((t) => (t.timestamp as number) >= since);
      const notional = recent.reduce((sum, t) => sum + (t.size as number) * (t.price as number), 0);
      expect(market.volume24hr as number).toBeCloseTo(notional, 6);
      const all = trades.body.reduce((sum, t) => sum + (t.size as number) * (t.price as number), 0);
      expect(market.volumeNum as number).toBeCloseTo(all, 5);
    }
  });

  it('serves holders, open interest, positions, value and activity for the same wallets', async () => {
    const market = [...sim.state.world.markets].sort((x, y) => sim.state.totalVolume(y.index) - sim.state.totalVolume(x.index))[0]!;
    const holders = await getJson<{ token: string; holders: Row[] }[]>(`${sim.dataUrl}/holders?market=${market.conditionId}`);
    expect(holders.body.map((group) => group.token)).toEqual(market.tokenIds);
    const top = holders.body.flatMap((group) => group.holders)[0]!;
    expect(top).toMatchObject({
      proxyWallet: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      amount: expect.any(Number),
      outcomeIndex: expect.any(Number),
    });

    const oi = await getJson<Row[]>(`${sim.dataUrl}/oi?market=${market.conditionId}`);
    expect(oi.body).toEqual([{ market: market.conditionId, value: expect.any(Number) }]);
    expect(oi.body[0]!.value as number).toBeGreaterThan(0);

    const positions = await getJson<Row[]>(`${sim.dataUrl}/positions?user=${top.proxyWallet}`);
    expect(positions.body.length).toBeGreaterThan(0);
    const held = positions.body.find((p) => p.asset === top.asset)!;
    expect(held.size as number).toBeCloseTo(top.amount as number, 3);

    const value = await getJson<Row[]>(`${sim.dataUrl}/value?user=${top.proxyWallet}`);
    expect(value.body[0]).toMatchObject({ user: top.proxyWallet, value: expect.any(Number) });

    const activity = await getJson<Row[]>(`${sim.dataUrl}/activity?user=${top.proxyWallet}&limit=500`);
    expect(activity.body.length).toBeGreaterThan(0);
    for (let i = 1; i < activity.body.length; i++)
      expect(activity.body[i - 1]!.timestamp as number).toBeGreaterThanOrEqual(activity.body[i]!.timestamp as number);
    expect(activity.body.every((row) => ['TRADE', 'SPLIT', 'MERGE', 'REDEEM'].includes(row.type as string))).toBe(true);

    expect((await getJson(`${sim.dataUrl}/positions`)).status).toBe(400);
    expect((await getJson(`${sim.dataUrl}/holders`)).status).toBe(400);
    expect((await getJson(`${sim.dataUrl}/activity?user=${top.proxyWallet}&type=BOGUS`)).status).toBe(400);
  });

  it('shows redemptions in /activity for wallets on resolved markets', async () => {
    const redeemer = sim.state.world.wallets.find((w) => sim.state.ledger.activityOf(w.index).some((e) => e.type === 'REDEEM'))!;
    const rows = await getJson<Row[]>(`${sim.dataUrl}/activity?user=${redeemer.address}&type=REDEEM`);
    expect(rows.body.length).toBeGreaterThan(0);
    for (const row of rows.body) {
      expect(row).toMatchObject({ type: 'REDEEM', side: '', asset: '', outcomeIndex: 999, price: 0 });
      const market = sim.state.marketByConditionId.get(row.conditionId as string)!;
      expect(sim.state.status[market.index]!.resolved).toBe(true);
    }
  });
});
