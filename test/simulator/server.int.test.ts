import net from 'node:net';
import os from 'node:os';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { FIXED_NOW_MS, SMALL_WORLD, decodeJsonArray, fixedClock } from './fixtures.js';
import { getJson, postJson, type Row } from './http.js';

describe('upstream simulator over HTTP: Gamma and CLOB', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ ...SMALL_WORLD, marketCount: 120, port: 0, clock: fixedClock(), tickIntervalMs: 60_000 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('listens on 127.0.0.1 only, with the three APIs under path prefixes', async () => {
    expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.gammaUrl).toBe(`${sim.baseUrl}/gamma`);
    expect(sim.clobUrl).toBe(`${sim.baseUrl}/clob`);
    expect(sim.dataUrl).toBe(`${sim.baseUrl}/data`);
    const port = Number(new URL(sim.baseUrl).port);
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
    if (external) {
      // Not reachable through a non-loopback interface.
      await expect(connect(external, port)).rejects.toThrow();
    }
    await expect(connect('127.0.0.1', port)).resolves.toBeUndefined();
  });

  it('labels every response, including errors, with X-Upstream-Source: simulator', async () => {
    for (const path of ['/gamma/markets', '/clob/book?token_id=1', '/data/trades?limit=1', '/data/trades?offset=20000', '/nowhere']) {
      const response = await fetch(`${sim.baseUrl}${path}`);
      expect(response.headers.get('x-upstream-source')).toBe('simulator');
      await response.arrayBuffer();
    }
  });

  it('lists open markets by default (closed omitted = closed=false) and closed ones on request', async () => {
    const open = await getJson<Row[]>(`${sim.gammaUrl}/markets?limit=500`);
    const closed = await getJson<Row[]>(`${sim.gammaUrl}/markets?limit=500&closed=true`);
    expect(open.status).toBe(200);
    expect(open.body.every((m) => m.closed === false)).toBe(true);
    expect(closed.body.length).toBeGreaterThan(0);
    expect(closed.body.every((m) => m.closed === true)).toBe(true);
    expect(open.body.length + closed.body.length).toBe(sim.state.world.markets.length);
    const ids = open.body.map((m) => Number(m.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const market of open.body) {
      expect(decodeJsonArray(market.clobTokenIds)).toHaveLength(2);
      expect(decodeJsonArray(market.outcomes)).toHaveLength(2);
    }
  });

  it('pages, orders and filters /gamma/markets', async () => {
    const firstPage = await getJson<Row[]>(`${sim.gammaUrl}/markets`);
    expect(firstPage.body).toHaveLength(20);
    const secondPage = await getJson<Row[]>(`${sim.gammaUrl}/markets?limit=20&offset=20`);
    expect(secondPage.body[0]!.id).not.toBe(firstPage.body[0]!.id);

    const byVolume = await getJson<Row[]>(`${sim.gammaUrl}/markets?order=volume24hr&ascending=false&limit=50`);
    const volumes = byVolume.body.map((m) => m.volume24hr as number);
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    expect(volumes[0]).toBeGreaterThan(volumes[volumes.length - 1]!);

    const [a, b] = firstPage.body as [Row, Row];
    const byId = await getJson<Row[]>(`${sim.gammaUrl}/markets?id=${a.id}&id=${b.id}`);
    expect(byId.body.map((m) => m.id)).toEqual([a.id, b.id]);
    const bySlug = await getJson<Row[]>(`${sim.gammaUrl}/markets?slug=${a.slug}`);
    expect(bySlug.body.map((m) => m.id)).toEqual([a.id]);
    const byCondition = await getJson<Row[]>(`${sim.gammaUrl}/markets?condition_ids=${b.conditionId}`);
    expect(byCondition.body.map((m) => m.id)).toEqual([b.id]);

    const sportsTag = sim.state.world.tags.find((t) => t.label === 'Sports')!;
    const sports = await getJson<Row[]>(`${sim.gammaUrl}/markets?tag_id=${sportsTag.id}&limit=500`);
    expect(sports.body.length).toBeGreaterThan(0);
    expect(sports.body.every((m) => m.category === 'Sports')).toBe(true);

    const one = await getJson<Row>(`${sim.gammaUrl}/markets/${a.id}`);
    expect(one.body.id).toBe(a.id);
    const oneBySlug = await getJson<Row>(`${sim.gammaUrl}/markets/slug/${a.slug}`);
    expect(oneBySlug.body.id).toBe(a.id);
  });

  it('answers 400 {error} to invalid parameters and 404 to unknown ids', async () => {
    for (const query of ['limit=abc', 'offset=-1', 'closed=maybe', 'order=bogus', 'condition_ids=0x12', 'end_date_min=notadate']) {
      const response = await getJson<Row>(`${sim.gammaUrl}/markets?${query}`);
      expect(response.status).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect((await getJson(`${sim.gammaUrl}/markets/999999999`)).status).toBe(404);
    expect((await getJson(`${sim.gammaUrl}/markets/abc`)).status).toBe(400);
    // Unknown parameters are ignored.
    expect((await getJson(`${sim.gammaUrl}/markets?foo=bar`)).status).toBe(200);
  });

  it('serves events with nested markets, tags and series; series and tags lists', async () => {
    const events = await getJson<Row[]>(`${sim.gammaUrl}/events?limit=500`);
    expect(events.body.length).toBeGreaterThan(0);
    for (const event of events.body) {
      expect(Array.isArray(event.markets)).toBe(true);
      expect(Array.isArray(event.tags)).toBe(true);
      expect(typeof event.volume).toBe('number');
    }
    expect(events.body.some((e) => Array.isArray(e.series))).toBe(true);
    const negRisk = events.body.find((e) => e.negRisk === true)!;
    const bySlug = await getJson<Row[]>(`${sim.gammaUrl}/events?slug=${negRisk.slug}`);
    expect(bySlug.body).toHaveLength(1);
    expect((await getJson<Row>(`${sim.gammaUrl}/events/${negRisk.id}`)).body.id).toBe(negRisk.id);

    const series = await getJson<Row[]>(`${sim.gammaUrl}/series`);
    expect(series.body.length).toBeGreaterThan(0);
    expect(series.body[0]).toMatchObject({ recurrence: expect.any(String), events: expect.any(Array) });
    const tags = await getJson<Row[]>(`${sim.gammaUrl}/tags`);
    expect(tags.body[0]).toMatchObject({ id: expect.stringMatching(/^\d+$/), label: expect.any(String), slug: expect.any(String) });
  });

  it('serves CLOB books sorted like upstream, in batches too', async () => {
    const market = sim.state.world.markets.find((m) => sim.state.isAcceptingOrders(m.index))!;
    const [yes, no] = market.tokenIds;
    const book = await getJson<{ bids: Row[]; asks: Row[]; hash: string; timestamp: string }>(`${sim.clobUrl}/book?token_id=${yes}`);
    expect(book.status).toBe(200);
    const bids = book.body.bids.map((l) => Number(l.price));
    const asks = book.body.asks.map((l) => Number(l.price));
    expect(bids).toEqual([...bids].sort((a, b) => a - b));
    expect(asks).toEqual([...asks].sort((a, b) => b - a));
    expect(bids.at(-1)!).toBeLessThan(asks.at(-1)!);
    expect(book.body.hash).toMatch(/^[0-9a-f]{40}$/);
    expect(book.body.timestamp).toBe(String(FIXED_NOW_MS));

    const batch = await postJson<Row[]>(`${sim.clobUrl}/books`, [{ token_id: yes }, { token_id: no }]);
    expect(batch.body.map((b) => b.asset_id)).toEqual([yes, no]);
    expect((await postJson(`${sim.clobUrl}/books`, { token_id: yes })).status).toBe(400);

    const mid = await getJson<{ mid: string }>(`${sim.clobUrl}/midpoint?token_id=${yes}`);
    expect(Number(mid.body.mid)).toBeCloseTo((bids.at(-1)! + asks.at(-1)!) / 2, 9);
    const last = await getJson<{ price: string; side: string }>(`${sim.clobUrl}/last-trade-price?token_id=${yes}`);
    expect(typeof last.body.price).toBe('string');
    expect(['BUY', 'SELL', '']).toContain(last.body.side);
  });

  it('answers 404 like upstream for tokens without a book', async () => {
    const response = await getJson<Row>(`${sim.clobUrl}/book?token_id=42`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'No orderbook exists for the requested token id' });
    expect((await getJson(`${sim.clobUrl}/book`)).status).toBe(400);
  });

  it('serves /prices-history from the price path', async () => {
    const market = sim.state.world.markets.find((m) => sim.state.isAcceptingOrders(m.index))!;
    const nowSeconds = Math.floor(FIXED_NOW_MS / 1000);
    const history = await getJson<{ history: { t: number; p: number }[] }>(
      `${sim.clobUrl}/prices-history?market=${market.tokenIds[0]}&startTs=${nowSeconds - 3600}&endTs=${nowSeconds}&fidelity=5`,
    );
    expect(history.body.history.length).toBeGreaterThanOrEqual(11);
    for (const point of history.body.history) {
      expect(Number.isInteger(point.t)).toBe(true);
      expect(point.t).toBeGreaterThanOrEqual(nowSeconds - 3600);
      expect(point.t).toBeLessThanOrEqual(nowSeconds);
      expect(point.p).toBeGreaterThan(0);
      expect(point.p).toBeLessThan(1);
    }
    const daily = await getJson<{ history: unknown[] }>(
      `${sim.clobUrl}/prices-history?market=${market.tokenIds[1]}&interval=1d&fidelity=60`,
    );
    expect(daily.body.history.length).toBeGreaterThan(0);
    expect((await getJson(`${sim.clobUrl}/prices-history?market=${market.tokenIds[0]}&interval=2y`)).status).toBe(400);
  });

  it('shows a resolution through Gamma once advance() passes the end date', async () => {
    const now = sim.state.nowMs();
    const target = sim.state.world.markets
      .filter((m) => m.closesAtMs !== null && m.closesAtMs > now && m.resolvesOnClose)
      .sort((a, b) => a.closesAtMs! - b.closesAtMs!)[0]!;
    const before = await getJson<Row>(`${sim.gammaUrl}/markets/${target.id}`);
    expect(before.body).toMatchObject({ closed: false, acceptingOrders: true });
    expect(before.body).not.toHaveProperty('umaResolutionStatus');

    sim.advance(target.closesAtMs! - now);
    const after = await getJson<Row>(`${sim.gammaUrl}/markets/${target.id}`);
    expect(after.body).toMatchObject({ closed: true, acceptingOrders: false, umaResolutionStatus: 'resolved' });
    expect(after.body.outcomePrices).toBe(target.winningOutcome === 0 ? '["1", "0"]' : '["0", "1"]');
    expect(after.body.closedTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+00$/);
    const listed = await getJson<Row[]>(`${sim.gammaUrl}/markets?closed=true&id=${target.id}`);
    expect(listed.body).toHaveLength(1);
    expect((await getJson(`${sim.clobUrl}/book?token_id=${target.tokenIds[0]}`)).status).toBe(404);
  });
});

function connect(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new Error('timeout'));
    });
    socket.once('error', reject);
  });
}
