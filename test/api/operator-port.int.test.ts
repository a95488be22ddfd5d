/**
 * Operator endpoints live apart from the public API: /metrics and /admin answer on the admin port
 * (loopback by default) and are unknown routes on the public one. Scrapes and health checks are cheap
 * however often they come: the sink lag (log admin calls) and the indexed counts (a distinct count)
 * are computed at most once per period, and upstream failures show as their kind, never their text.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { type ApiServer, startApiServer } from '../../services/api-server.js';
import { loadConfig } from '../../services/config.js';
import { migrateControlStore } from '../../services/control/migrate.js';
import { openPgliteStore } from '../../services/control/pglite-store.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { SourceHealth } from '../../services/ingest/source-health.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { allTopicSpecs, topicSchemas } from '../../services/read-models/registry.js';
import { getJson, postJson } from '../support/http.js';

let server: ApiServer;
let store: AnalyticsStore;
let control: ControlStore;
let log: EventLog;
let dataDir: string;
const calls = { positions: 0, counts: 0 };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-operator-'));
  const fileLog = await openFileEventLog({ directory: path.join(dataDir, 'log'), schemas: topicSchemas(), fsync: false });
  await fileLog.createTopics(allTopicSpecs());
  log = new Proxy(fileLog, {
    get: (target, name) =>
      name === 'positions'
        ? (...args: Parameters<EventLog['positions']>) => {
            calls.positions++;
            return target.positions(...args);
          }
        : Reflect.get(target, name),
  });
  const chdb = await openChdbStore({ path: path.join(dataDir, 'chdb'), database: 'operator' });
  await migrate(chdb);
  store = new Proxy(chdb, {
    get: (target, name) =>
      name === 'query'
        ? (...args: Parameters<AnalyticsStore['query']>) => {
            if (args[0].includes('uniqExact(market_id)')) calls.counts++;
            return target.query(...args);
          }
        : Reflect.get(target, name),
  });
  control = await openPgliteStore(path.join(dataDir, 'pglite'));
  await migrateControlStore(control);
  const health = new SourceHealth();
  health.register('data.trades', 15_000);
  for (let i = 0; i < 3; i++)
    health.failed(
      'data.trades',
      Object.assign(new Error('data-api https://internal.example/trades?key=s3cret: HTTP 503 upstream says: maintenance'), { status: 503 }),
    );
  // The catalog sync fails once and then waits: named at once, as it has never succeeded.
  health.failed('gamma.catalog-sync', new Error('gamma http://127.0.0.1:9/markets/keyset: fetch failed (ENOTFOUND)'));
  server = await startApiServer({
    // Sandbox keys have their own rate and share their address's (RATE_FREE_PER_IP_PER_SECOND): the scrape test's
    // burst of 20 health reads emptied the address's bucket, and the next test's read was a 429 in a CI run.
    config: loadConfig({
      PORT: '0',
      ADMIN_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      RATE_SANDBOX_PER_SECOND: '1000',
      RATE_FREE_PER_IP_PER_SECOND: '1000',
    }),
    store,
    control,
    log,
    logger: pino({ level: 'silent' }),
    sources: () => health.snapshot(),
    adminEndpoint: true,
  });
}, 60_000);
afterAll(async () => {
  await server.stop();
  await log.close();
  await store.close();
  await control.close();
});

test('/metrics and /admin are on the admin port only', async () => {
  expect(server.adminUrl).not.toBe(server.url);
  expect(new URL(server.adminUrl).hostname).toBe('127.0.0.1');
  expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  expect((await postJson(`${server.url}/admin/keys`, { name: 'x', tier: '1' })).status).toBe(404);
  const metrics = await fetch(`${server.adminUrl}/metrics`);
  expect(metrics.status).toBe(200);
  const text = await metrics.text();
  expect(text).toContain('tapeline_read_cache_entries ');
  expect(text).toContain('tapeline_analytics_queries_queued ');
  // The engine's own memory accounting, read from it: a positive tracked total, each cache's bytes.
  const tracked = Number(/^tapeline_analytics_engine_memory_bytes\{figure="tracked"\} (\S+)$/m.exec(text)?.[1]);
  expect(tracked).toBeGreaterThan(0);
  expect(text).toMatch(/^tapeline_analytics_engine_memory_bytes\{figure="mark_cache"\} \d+$/m);
  const rss = Number(/^tapeline_process_memory_bytes\{figure="rss"\} (\d+)$/m.exec(text)?.[1]);
  expect(rss).toBeGreaterThan(Number(/^tapeline_process_memory_bytes\{figure="heap_used"\} (\d+)$/m.exec(text)?.[1]));
  const { url, token } = JSON.parse(fs.readFileSync(path.join(dataDir, 'admin.json'), 'utf8'));
  expect(url).toBe(server.adminUrl);
  const created = await fetch(`${server.adminUrl}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'operator', tier: '1' }),
  });
  expect(created.status).toBe(201);
});

test('many scrapes and health checks cost one sink-lag read and one indexed count per period', async () => {
  const key = (await postJson(`${server.url}/v1/agents/register`, { name: 'prober' })).body.data.api_key;
  calls.positions = 0;
  calls.counts = 0;
  const started = Date.now();
  for (let i = 0; i < 20; i++) {
    expect((await fetch(`${server.adminUrl}/metrics`)).status).toBe(200);
    expect((await getJson(`${server.url}/v1/health`, key)).status).toBe(200);
  }
  // The log's positions (the sink's and the ledger's lags) once per 5 s period the burst overlaps (on a
  // loaded machine 40 requests can span several), not once per request; one indexed count (30 s period).
  const periods = Math.ceil((Date.now() - started) / 5_000) + 1;
  expect(calls.positions).toBeLessThanOrEqual(periods);
  expect(calls.positions).toBeLessThan(20);
  expect(calls.counts).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 30_000) + 1);
});

test('/v1/health shows a failing source by its kind, never upstream text or URLs', async () => {
  const key = (await postJson(`${server.url}/v1/agents/register`, { name: 'health-reader' })).body.data.api_key;
  const answer = await getJson(`${server.url}/v1/health`, key);
  expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 200, error: undefined });
  const health = answer.body.data;
  expect(health.status).toBe('degraded');
  const source = health.sources.find((s: any) => s.source === 'data.trades');
  expect(source.last_error).toBe('upstream answered HTTP 503');
  expect(health.issues).toContainEqual('gamma.catalog-sync: has not succeeded yet (1 failed attempt); last error: upstream unreachable');
  const serialized = JSON.stringify(health);
  expect(serialized).not.toContain('internal.example');
  expect(serialized).not.toContain('s3cret');
  expect(serialized).not.toContain('maintenance');
});
