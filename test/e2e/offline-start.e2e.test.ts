/**
 * An offline start explains itself: the service starts with every upstream on a port nothing listens
 * on, logs one plain line per upstream it cannot reach (not one per retry), and /v1/health and
 * /v1/markets say why there is no data. Then the simulator starts on that very port: each upstream
 * logs once that it is reachable again, and health turns fresh.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getJson, postJson, waitFor } from '../support/http.js';
import { freePort, startChild, type Child, simulatorUpstreams } from '../support/processes.js';

const children: Child[] = [];
let dataDir: string | undefined;
afterAll(async () => {
  for (const child of children) await child.kill('SIGKILL');
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

type LogLine = { level: number; msg: string; upstream?: string; err?: unknown };

function logLines(child: Child): LogLine[] {
  return child
    .output()
    .split('\n')
    .flatMap((text) => {
      try {
        return [JSON.parse(text) as LogLine];
      } catch {
        return [];
      }
    });
}

const WARN = 40;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('unreachable upstreams: one plain line each, health and markets say why; recovery is logged once and health turns fresh', async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-offline-'));
  const upstreamPort = await freePort();
  const upstream = `http://127.0.0.1:${upstreamPort}`;
  // The CLOB and its websocket on a port of their own, still closed when the rest comes back (d).
  const clobPort = await freePort();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = startChild('services/main.ts', {
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: String(await freePort()),
    ...simulatorUpstreams(upstream),
    POLYMARKET_CLOB_URL: `http://127.0.0.1:${clobPort}/clob`,
    POLYMARKET_WS_URL: `ws://127.0.0.1:${clobPort}/ws/market`,
    POLYGON_RPC_URL: `${upstream}/rpc`,
    CHAIN_CONFIRMATIONS: '1',
    CHAIN_POLL_INTERVAL_MS: '500',
    TRADES_POLL_INTERVAL_MS: '300',
    MARKETS_POLL_INTERVAL_MS: '1000',
    CATALOG_SYNC_INTERVAL_MS: '1000',
    TRADES_BACKFILL_MARKETS: '0',
  });
  children.push(service);
  await service.waitForLog((line) => line.msg === 'tapeline is serving', 90_000);
  const key = (await postJson(`${base}/v1/developers/register`, { name: 'offline', email: 'offline@example.org' })).body.data
    .api_key as string;

  // (a) Many retries later (trades every 300 ms, each with its own retries), still one line per upstream.
  await waitFor(
    async () => {
      const down = logLines(service).filter((l) => l.level === WARN && / cannot be reached at /.test(l.msg));
      return ['gamma', 'data', 'rpc'].every((u) => down.some((l) => l.upstream === u)) || null;
    },
    60_000,
    'a line for Gamma, the Data API and the RPC',
    200,
  );
  await sleep(8_000);
  const warnings = logLines(service).filter(
    (l) => l.level === WARN && l.msg !== 'DATA_DIR was open to group or others: made it owner-only',
  );
  const perUpstream = new Map<string, number>();
  for (const line of warnings) if (line.upstream) perUpstream.set(line.upstream, (perUpstream.get(line.upstream) ?? 0) + 1);
  expect(Object.fromEntries(perUpstream)).toEqual(expect.objectContaining({ gamma: 1, data: 1, rpc: 1 }));
  for (const count of perUpstream.values()) expect(count).toBe(1);
  // Nothing else warns about the same outage (no per-task line, no stack trace).
  expect(warnings.filter((l) => !l.upstream).map((l) => l.msg)).toEqual([]);
  expect(warnings.every((l) => l.err === undefined)).toBe(true);
  const gammaLine = warnings.find((l) => l.upstream === 'gamma')!.msg;
  expect(gammaLine).toBe(
    `Polymarket's Gamma API cannot be reached at 127.0.0.1:${upstreamPort} (ECONNREFUSED): check the network, and POLYMARKET_GAMMA_URL if it is set; the service keeps retrying and serves what it has (repeats are logged at debug level)`,
  );

  // (b) Health names the catalog sync with the cause; nothing that fetched nothing is fresh.
  const offline = (await getJson(`${base}/v1/health`, key)).body.data;
  expect(offline.status).toBe('degraded');
  const gammaCause = new RegExp(
    `Polymarket's Gamma API cannot be reached \\(ECONNREFUSED 127\\.0\\.0\\.1:${upstreamPort}\\) since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; check the network and POLYMARKET_GAMMA_URL`,
  );
  expect(offline.issues).toEqual(
    expect.arrayContaining([expect.stringMatching(new RegExp(`^gamma\\.catalog-sync: .*${gammaCause.source}`))]),
  );
  expect(offline.issues).toEqual(
    expect.arrayContaining([expect.stringMatching(/^data\.trades: .*Polymarket's Data API cannot be reached \(ECONNREFUSED /)]),
  );
  for (const source of offline.sources) {
    if (source.last_success_at === null)
      expect({ source: source.source, fresh: source.fresh }).toEqual({ source: source.source, fresh: null });
  }
  expect(offline.sources.filter((s: { fresh: boolean | null }) => s.fresh === true)).toEqual([]);
  const gamma = offline.upstreams.find((u: { upstream: string }) => u.upstream === 'gamma');
  expect(gamma).toMatchObject({
    host: `127.0.0.1:${upstreamPort}`,
    reachable: false,
    error_code: 'ECONNREFUSED',
    setting: 'POLYMARKET_GAMMA_URL',
  });
  expect(gamma.failed_attempts).toBeGreaterThan(1);
  expect(gamma.cause).toMatch(gammaCause);

  // An empty market list says why it is empty.
  const empty = (await getJson(`${base}/v1/markets?status=all`, key)).body;
  expect(empty).toMatchObject({ success: true, data: [] });
  expect(empty.notice).toMatch(
    new RegExp(
      `^No market has been indexed yet: the market catalog has not synced since the service started because Polymarket's Gamma API cannot be reached \\(ECONNREFUSED 127\\.0\\.0\\.1:${upstreamPort}\\)`,
    ),
  );

  // (c) The simulator comes up on that port: each upstream recovers with one line, and health turns fresh.
  const simulatorEnv = { SIM_SEED: '7', SIM_MARKET_COUNT: '20', SIM_HISTORIC_TRADES: '500', SIM_TRADES_PER_SECOND: '2' };
  const simulator = startChild('simulator/main.ts', { SIM_PORT: String(upstreamPort), ...simulatorEnv });
  children.push(simulator);
  await simulator.waitForLog((l) => typeof l.baseUrl === 'string', 30_000);
  const upstreams = [
    ['gamma', "Polymarket's Gamma API"],
    ['data', "Polymarket's Data API"],
    ['rpc', 'The Polygon RPC'],
  ] as const;
  // All three waited for at once: a waiter sees only lines logged after it, and the upstreams recover in any order.
  const recoveredLines = await Promise.all(
    upstreams.map(([upstreamName]) =>
      service.waitForLog((l) => l.upstream === upstreamName && / is reachable again after /.test(String(l.msg)), 60_000),
    ),
  );
  for (const [index, [, label]] of upstreams.entries()) {
    const line = recoveredLines[index]!;
    expect(line.level).toBe(WARN);
    expect(String(line.msg)).toMatch(new RegExp(`^${label} is reachable again after \\d+ s \\(\\d+ failed attempts?\\)$`));
  }
  const recovered = await waitFor(
    async () => {
      const { body } = await getJson(`${base}/v1/health`, key);
      const byName = new Map(body.data.sources.map((s: { source: string }) => [s.source, s]));
      const fresh = (name: string) => (byName.get(name) as { fresh?: boolean } | undefined)?.fresh === true;
      const synced = (byName.get('gamma.catalog-sync') as { last_success_at?: string | null } | undefined)?.last_success_at;
      return fresh('gamma.markets') && fresh('data.trades') && synced ? body.data : null;
    },
    90_000,
    'health fresh after recovery',
    250,
  );
  const unreachable = (health: { upstreams: Array<{ upstream: string; reachable: boolean | null }> }) =>
    health.upstreams.filter((u) => u.reachable === false).map((u) => u.upstream);
  expect(unreachable(recovered).filter((u) => u !== 'clob' && u !== 'ws')).toEqual([]);
  expect(recovered.issues.filter((i: string) => / cannot be reached /.test(i) && !/CLOB|websocket/.test(i))).toEqual([]);
  // The synced catalog reaches the list once the sink has written it.
  const listed = await waitFor(
    async () => {
      const { body } = await getJson(`${base}/v1/markets?status=all`, key);
      return body.data.length > 0 ? body : null;
    },
    60_000,
    'markets listed after recovery',
    250,
  );
  expect(listed.notice).toBeUndefined();
  // Still one line per upstream going down: the recovery did not log the outage again.
  const down = logLines(service).filter((l) => l.level === WARN && / cannot be reached at /.test(l.msg));
  expect(down.filter((l) => l.upstream === 'gamma')).toHaveLength(1);

  // (d) With markets known, the books are read from the CLOB and its websocket, still on a closed port:
  // one line each naming its setting, and health says so; then they come up and recover with one line each.
  const books = [
    ['clob', "Polymarket's CLOB API", 'POLYMARKET_CLOB_URL'],
    ['ws', "Polymarket's market websocket", 'POLYMARKET_WS_URL'],
  ] as const;
  await waitFor(
    async () => {
      const lines = logLines(service).filter((l) => l.level === WARN && / cannot be reached at /.test(l.msg));
      return books.every(([name]) => lines.some((l) => l.upstream === name)) || null;
    },
    60_000,
    'a line for the CLOB and its websocket',
    200,
  );
  for (const [name, label, setting] of books) {
    const line = logLines(service).find((l) => l.upstream === name && / cannot be reached at /.test(l.msg))!;
    expect(line.msg).toBe(
      `${label} cannot be reached at 127.0.0.1:${clobPort} (ECONNREFUSED): check the network, and ${setting} if it is set; the service keeps retrying and serves what it has (repeats are logged at debug level)`,
    );
  }
  const booksDown = (await getJson(`${base}/v1/health`, key)).body.data;
  expect(unreachable(booksDown).sort()).toEqual(['clob', 'ws']);
  for (const [name, , setting] of books)
    expect(booksDown.upstreams.find((u: { upstream: string }) => u.upstream === name)).toMatchObject({
      host: `127.0.0.1:${clobPort}`,
      error_code: 'ECONNREFUSED',
      setting,
    });
  const bookServer = startChild('simulator/main.ts', { SIM_PORT: String(clobPort), ...simulatorEnv });
  children.push(bookServer);
  const booksBack = await Promise.all(
    books.map(([name]) => service.waitForLog((l) => l.upstream === name && / is reachable again after /.test(String(l.msg)), 60_000)),
  );
  for (const [index, [, label]] of books.entries())
    expect(String(booksBack[index]!.msg)).toMatch(new RegExp(`^${label} is reachable again after \\d+ s \\(\\d+ failed attempts?\\)$`));
  const whole = await waitFor(
    async () => {
      const health = (await getJson(`${base}/v1/health`, key)).body.data;
      return unreachable(health).length === 0 ? health : null;
    },
    30_000,
    'every upstream reachable',
    250,
  );
  expect(whole.issues.filter((i: string) => / cannot be reached /.test(i))).toEqual([]);
  const booksDownLines = logLines(service).filter((l) => l.level === WARN && / cannot be reached at /.test(l.msg));
  for (const [name] of books) expect(booksDownLines.filter((l) => l.upstream === name)).toHaveLength(1);
}, 300_000);
