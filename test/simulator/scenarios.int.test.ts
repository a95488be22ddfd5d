/**
 * Simulator scenarios over HTTP: a market past its end date that resolves 30 days after it, a
 * 50-50 void, a trade burst, a historical catalog behind keyset paging (archived entries only when
 * asked for), and a websocket that accepts and then says nothing.
 */
import WebSocket from 'ws';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { SMALL_WORLD, decodeJsonArray } from './fixtures.js';
import { getJson, type Row } from './http.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 2, 12, 9, 30, 0);

describe('simulator scenarios', () => {
  let sim: RunningSimulator;
  let now = START;

  beforeAll(async () => {
    sim = await startSimulator({
      ...SMALL_WORLD,
      tradesPerSecond: 0.05,
      historicalMarkets: 250,
      port: 0,
      clock: () => now,
      tickIntervalMs: 60_000,
      scenarios: { lateResolutions: 1, voids: 1, bursts: [{ atMs: START + 10 * 60_000, trades: 3_000, durationMs: 5_000 }] },
      faults: { wsSilentConnections: 1 },
    });
  });
  afterAll(async () => {
    await sim.close();
  });

  const market = (index: number) => sim.state.world.markets[index]!;
  const byCondition = async (conditionId: string, closed: boolean) =>
    (await getJson<Row[]>(`${sim.gammaUrl}/markets?condition_ids=${conditionId}&closed=${closed}`)).body[0];

  it('a market past its end date stays open, escapes an end_date_min window, and resolves 30 days after its end', async () => {
    const late = market(sim.state.scenarioMarkets.lateResolution[0]!);
    expect(late.endDateMs).toBeLessThan(START - 28 * DAY);
    const open = await byCondition(late.conditionId, false);
    expect(open).toMatchObject({ closed: false, acceptingOrders: true });
    const weekAgo = new Date(START - 7 * DAY).toISOString();
    const closedRecently = (await getJson<Row[]>(`${sim.gammaUrl}/markets?closed=true&end_date_min=${weekAgo}&limit=500`)).body;

    now = late.closesAtMs! + 1000;
    sim.advance(0);
    expect(late.closesAtMs! - late.endDateMs).toBe(30 * DAY);
    const resolved = await byCondition(late.conditionId, true);
    expect(resolved).toMatchObject({ closed: true, umaResolutionStatus: 'resolved' });
    expect(decodeJsonArray(resolved!.outcomePrices).map(Number).sort()).toEqual([0, 1]);
    // Gamma filters end_date_min on the end date: a poll of "closed in the last week" never sees it.
    const stillMissing = (await getJson<Row[]>(`${sim.gammaUrl}/markets?closed=true&end_date_min=${weekAgo}&limit=500`)).body;
    expect(stillMissing.some((m) => m.conditionId === late.conditionId)).toBe(false);
    expect(closedRecently.some((m) => m.conditionId === late.conditionId)).toBe(false);
  });

  it('a void resolves 50-50: both outcomes pay 0.5 and holders redeem at 0.5', async () => {
    const voided = market(sim.state.scenarioMarkets.voided[0]!);
    expect(now).toBeGreaterThan(voided.closesAtMs!);
    const row = await byCondition(voided.conditionId, true);
    expect(row).toMatchObject({ closed: true, umaResolutionStatus: 'resolved', outcomePrices: '["0.5", "0.5"]' });
    expect(row!.bestBid).toBeUndefined();
    expect(sim.state.outcomePrice(voided.index, 0)).toBe(0.5);
    const redeemed = sim.state.world.wallets.flatMap((w) =>
      sim.state.ledger.activityOf(w.index).filter((a) => a.marketIndex === voided.index && a.type === 'REDEEM'),
    );
    expect(redeemed.length).toBeGreaterThan(0);
    // The CTF pays each outcome's shares x 1/2, rounded down, and burns them all.
    for (const entry of redeemed) {
      const [yes, no] = entry.voidedHeld!;
      expect(entry.shares).toBe(yes + no);
      expect(entry.usdc).toBe(yes / 2n + no / 2n);
    }
  });

  it('a burst puts thousands of fills into a few seconds', () => {
    const first = Math.floor((START + 10 * 60_000) / 1000);
    const inBurst = sim.state.trades.filter((t) => t.timestamp >= first && t.timestamp < first + 5).length;
    expect(inBurst).toBeGreaterThanOrEqual(2_900);
  });

  it('keyset paging walks the whole catalog once; archived markets only with archived=true; offset is refused', async () => {
    const seen = new Set<string>();
    for (const archived of [false, true])
      for (const closed of [false, true]) {
        let cursor: string | undefined;
        do {
          const page = await getJson<{ markets: Row[]; next_cursor?: string }>(
            `${sim.gammaUrl}/markets/keyset?limit=100&closed=${closed}&archived=${archived}${cursor ? `&after_cursor=${cursor}` : ''}`,
          );
          expect(page.body.markets.length).toBeLessThanOrEqual(100);
          for (const m of page.body.markets) {
            expect(m.archived).toBe(archived);
            expect(seen.has(String(m.id))).toBe(false);
            seen.add(String(m.id));
          }
          cursor = page.body.next_cursor;
        } while (cursor);
      }
    expect(seen.size).toBe(sim.state.world.markets.length);
    const archived = sim.state.world.markets.filter((m) => m.archived).length;
    expect(archived).toBeGreaterThan(0);
    const plain = (await getJson<Row[]>(`${sim.gammaUrl}/markets?closed=true&limit=500`)).body;
    expect(plain.some((m) => m.archived === true)).toBe(false);
    expect((await getJson(`${sim.gammaUrl}/markets/keyset?offset=100`)).status).toBe(400);
    // Ordered by updatedAt, newest first, with a cursor that continues the order.
    const first = await getJson<{ markets: Row[]; next_cursor?: string }>(
      `${sim.gammaUrl}/markets/keyset?closed=true&order=updatedAt&ascending=false&limit=50`,
    );
    const second = await getJson<{ markets: Row[] }>(
      `${sim.gammaUrl}/markets/keyset?closed=true&order=updatedAt&ascending=false&limit=50&after_cursor=${first.body.next_cursor}`,
    );
    const times = [...first.body.markets, ...second.body.markets].map((m) => String(m.updatedAt));
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('the first websocket connection is accepted and then silent: no book, no PONG', async () => {
    const token = sim.state.world.markets.find((m) => sim.state.isAcceptingOrders(m.index))!.tokenIds[0];
    const frames = async () => {
      const socket = new WebSocket(sim.wsUrl);
      const received: string[] = [];
      socket.on('message', (data) => received.push(data.toString()));
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(JSON.stringify({ assets_ids: [token], type: 'market' }));
      socket.send('PING');
      await new Promise((resolve) => setTimeout(resolve, 300));
      socket.terminate();
      return received;
    };
    expect(await frames()).toEqual([]);
    const second = await frames();
    expect(second).toContain('PONG');
    expect(second.some((f) => f.includes('"event_type":"book"'))).toBe(true);
  });
});
