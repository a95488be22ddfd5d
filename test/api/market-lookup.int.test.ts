/**
 * GET /markets/{id} for a market the catalog does not hold yet: looked up upstream (the simulator,
 * holding markets resolved years ago) on demand, answered at once and published for indexing -
 * and bounded: misses are cached, lookups are rate-limited and time out, and none of it is a 500.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EventPublisher } from '../../services/events/publisher.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { MarketLookup } from '../../services/ingest/market-lookup.js';
import { UpstreamClient } from '../../services/ingest/upstream-client.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { getJson } from '../support/http.js';

const START = Date.UTC(2026, 10, 21, 12);
let sim: RunningSimulator;
let log: EventLog;
let api: ApiHarness;
let key: string;
let lookup: MarketLookup;
let now = START;
let hanging: http.Server;
const requests: string[] = [];

const client = (baseUrl: string) =>
  new UpstreamClient({
    name: 'gamma',
    baseUrl,
    budgetPer10s: 1_000,
    timeoutMs: 500,
    maxAttempts: 1,
    fetchImpl: (url, init) => {
      requests.push(String(url));
      return fetch(url, init);
    },
  });

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    seed: 4,
    marketCount: 30,
    walletCount: 10,
    historicTrades: 100,
    historicalMarkets: 40,
    clock: () => START,
  });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-lookup-'));
  log = await openFileEventLog({ directory, schemas: topicSchemas(), fsync: false });
  await log.createTopics(allTopicSpecs());
  lookup = new MarketLookup({
    gamma: client(sim.gammaUrl),
    publisher: new EventPublisher(log),
    perSecond: 2,
    timeoutMs: 500,
    missTtlMs: 60_000,
    clock: () => now,
  });
  api = await startApiHarness({ marketLookup: lookup });
  key = (await api.admin.createKey('lookup', '1')).api_key;
  hanging = http.createServer(() => undefined);
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
}, 60_000);
afterAll(async () => {
  await api.close();
  await log.close();
  await sim.close();
  hanging.closeAllConnections();
  await new Promise((resolve) => hanging.close(resolve));
});

test('a market resolved in 2024, unknown to the catalog, is answered from upstream and published for indexing', async () => {
  const old = sim.state.world.markets.find((m) => m.endDateMs < Date.UTC(2025, 0, 1) && !m.archived && !m.voided)!;
  const response = await getJson(`${api.base}/v1/markets/${old.conditionId}`, key);
  expect(response.status).toBe(200);
  expect(response.body.data).toMatchObject({ id: old.conditionId, status: 'resolved', source: 'simulator', lifecycle: null });
  expect(new Date(response.body.data.end_date).getUTCFullYear()).toBeLessThan(2025);
  const [position] = (await log.positions('probe', STREAMS.markets.topic)).filter((p) => p.endOffset > 0);
  expect(position?.endOffset).toBe(1);
  // By slug too (another id: a token is back after half a second).
  now += 1_000;
  const other = sim.state.world.markets.find((m) => m.endDateMs < Date.UTC(2025, 0, 1) && m.index !== old.index && !m.archived)!;
  expect((await getJson(`${api.base}/v1/markets/${other.slug}`, key)).body.data.id).toBe(other.conditionId);
});

test('an id upstream does not know is 404, and asked again it does not reach upstream', async () => {
  now += 1_000;
  const unknown = `0x${'9'.repeat(64)}`;
  const first = await getJson(`${api.base}/v1/markets/${unknown}`, key);
  expect(first.status).toBe(404);
  expect(first.body.error).toMatch(/upstream does not list it either/);
  const before = requests.length;
  const again = await getJson(`${api.base}/v1/markets/${unknown}`, key);
  expect(again.status).toBe(404);
  expect(requests.length).toBe(before);
});

test('lookups are rate-limited: past the budget the answer is an immediate 404 that says so', async () => {
  now += 1_000;
  const ids = Array.from({ length: 4 }, (_, i) => `0x${String(i + 1).repeat(64)}`);
  const before = requests.length;
  const answers = [];
  for (const id of ids) answers.push(await getJson(`${api.base}/v1/markets/${id}`, key));
  expect(answers.every((a) => a.status === 404)).toBe(true);
  expect(answers.filter((a) => /rate limit/.test(a.body.error)).length).toBe(2);
  // Two lookups ran (each up to three Gamma requests); the throttled ones sent nothing.
  expect(requests.length - before).toBeLessThanOrEqual(6);
});

test('a lookup ends at its deadline when upstream hangs', async () => {
  const slow = new MarketLookup({
    gamma: client(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}`),
    publisher: null,
    perSecond: 5,
    timeoutMs: 200,
    missTtlMs: 60_000,
  });
  expect(await slow.lookup(`0x${'7'.repeat(64)}`)).toEqual({ missing: 'timed-out' });
  expect(await slow.lookup('not a slug!')).toEqual({ missing: 'not-a-market-id' });
});
