/**
 * Ingestion beyond markets and trades, in one process: simulator (Gamma, CLOB REST + websocket, Data
 * API) -> ingest -> file log -> sink -> chDB. The websocket drops frames and connections on purpose;
 * the stored books must still converge to the simulator's current books (gap detection + REST
 * resync + reconnect/resubscribe), and catalog, resolutions and tracked-wallet tables must fill.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { loadConfig } from '../../services/config.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { startIngest, type IngestService } from '../../services/ingest/ingest-service.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { startSink, type SinkService } from '../../services/sink/sink-service.js';
import { simulatorUpstreamEnv, startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { T0 } from '../support/events.js';
import { waitFor } from '../support/http.js';

// From the clock (T0): books are kept 30 days from now and deltas 7, so a fixed date stops storing them.
const FROZEN_NOW = T0;
const silent = pino({ level: 'silent' });

describe('ingestion of catalog, books, websocket and wallets', () => {
  let simulator: RunningSimulator;
  let store: AnalyticsStore;
  let log: EventLog;
  let ingest: IngestService;
  let sink: SinkService;
  let now = FROZEN_NOW;

  beforeAll(async () => {
    simulator = await startSimulator({
      port: 0,
      seed: 11,
      marketCount: 16,
      walletCount: 20,
      historicTrades: 800,
      historyHours: 24,
      clock: () => now,
      faults: { wsDropFrameRate: 0.3, wsDisconnectAfterFrames: 60 },
    });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-ingestion-'));
    const config = loadConfig({
      DATA_DIR: dataDir,
      ...simulatorUpstreamEnv(simulator),
      MARKETS_POLL_INTERVAL_MS: '500',
      TRADES_POLL_INTERVAL_MS: '300',
      CLOB_POLL_INTERVAL_MS: '2000',
      WALLETS_POLL_INTERVAL_MS: '1000',
      TRACKED_WALLETS_TOP: '5',
      WS_SHARD_SIZE: '8',
      TRADES_BACKFILL_MARKETS: '0',
      LOG_LEVEL: 'silent',
    });
    store = await openChdbStore({ path: fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-ingestion-chdb-')), database: 'ingestion' });
    await migrate(store);
    log = await openFileEventLog({ directory: path.join(dataDir, 'log') });
    ingest = await startIngest(config, log, silent);
    sink = await startSink(log, store, silent);
  }, 60_000);

  afterAll(async () => {
    await ingest?.stop();
    await sink?.stop();
    await log?.close();
    await store?.close();
    await simulator?.close();
  });

  const count = async (sql: string) => Number((await store.query<{ n: number }>(sql))[0]?.n ?? 0);

  test('catalog and resolutions: every tag, series and open event; one resolution per resolved market', async () => {
    const world = simulator.state.world;
    await waitFor(async () => (await count('SELECT count() AS n FROM gamma_tags FINAL')) === world.tags.length, 30_000, 'tags');
    await waitFor(async () => (await count('SELECT count() AS n FROM gamma_series FINAL')) === world.series.length, 30_000, 'series');
    const openEvents = (await (await fetch(`${simulator.gammaUrl}/events?closed=false&limit=500`)).json()) as Array<{ id: string }>;
    await waitFor(
      async () => (await count('SELECT count() AS n FROM gamma_events FINAL WHERE NOT closed')) === openEvents.length,
      30_000,
      'open events',
    );
    const resolved = simulator.state.status.filter((s) => s.resolved).length;
    expect(resolved).toBeGreaterThan(0);
    await waitFor(async () => (await count('SELECT count() AS n FROM market_resolutions FINAL')) === resolved, 30_000, 'resolutions');
    const [winner] = await store.query<{ idx: number; payout: number }>(
      'SELECT winning_outcome_index AS idx, payouts[winning_outcome_index + 1] AS payout FROM market_resolutions FINAL LIMIT 1',
    );
    expect(Number(winner!.payout)).toBe(1);
    await waitFor(
      async () =>
        (await count("SELECT count() AS n FROM markets FINAL WHERE status = 'resolved' AND uma_resolution_status = 'resolved'")) ===
        resolved,
      30_000,
      'resolution fields on markets',
    );
  }, 120_000);

  test('websocket books converge to upstream through dropped frames and dropped connections', async () => {
    await waitFor(async () => ingest.stream() !== null && ingest.stream()!.shardCount > 1, 30_000, 'websocket shards');
    const stream = ingest.stream()!;
    await stream.connected();
    // Move the world: books requote every simulated minute and on every fill.
    // Until the faults have bitten at least once each (a dropped frame shows up as a gap).
    for (let minute = 0; minute < 40 && (stream.stats.gaps === 0 || stream.stats.reconnects === 0); minute++) {
      const before = stream.stats.messages;
      now += 60_000;
      simulator.pushWebSocket();
      await waitFor(async () => stream.stats.messages > before, 10_000, 'websocket messages after a simulated minute');
    }
    expect(stream.stats.gaps).toBeGreaterThan(0);
    expect(stream.stats.reconnects).toBeGreaterThan(0);
    const tokens = simulator.state.world.markets.filter((m) => simulator.state.isAcceptingOrders(m.index)).flatMap((m) => m.tokenIds);
    expect(tokens.length).toBeGreaterThan(4);
    const upstream = async () => {
      const response = await fetch(`${simulator.clobUrl}/books`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(tokens.map((token_id) => ({ token_id }))),
      });
      return new Map(((await response.json()) as Array<{ asset_id: string; hash: string }>).map((b) => [b.asset_id, b.hash]));
    };
    const truth = await upstream();
    await waitFor(
      async () => {
        const rows = await store.query<{ asset_id: string; hash: string }>(
          'SELECT asset_id, argMax(hash, (ts, ingested_at)) AS hash FROM order_books WHERE asset_id IN {tokens:Array(String)} GROUP BY asset_id',
          { tokens },
        );
        const stored = new Map(rows.map((r) => [r.asset_id, r.hash]));
        return [...truth].every(([asset, hash]) => stored.get(asset) === hash);
      },
      30_000,
      'stored books equal the simulator books',
    );
    expect(await count("SELECT count() AS n FROM price_ticks WHERE kind = 'last_trade'")).toBeGreaterThan(0);
    expect(await count("SELECT count() AS n FROM price_ticks WHERE kind = 'midpoint'")).toBeGreaterThan(0);
    expect(await count('SELECT count() AS n FROM order_book_deltas')).toBeGreaterThan(0);
    const ws = ingest.health.snapshot().find((s) => s.source === 'clob.ws')!;
    expect(ws.target_lag_ms).toBe(2000);
    expect(ws.lag_ms).not.toBeNull();
  }, 120_000);

  test('tracked wallets: activity with splits/merges, positions, holders and open interest', async () => {
    await waitFor(async () => (await count('SELECT count() AS n FROM wallet_positions')) > 0, 60_000, 'positions');
    await waitFor(async () => (await count('SELECT count() AS n FROM wallet_activity')) > 0, 60_000, 'activity');
    await waitFor(async () => (await count('SELECT count() AS n FROM market_holders')) > 0, 60_000, 'holders');
    await waitFor(async () => (await count('SELECT count() AS n FROM open_interest')) > 0, 60_000, 'open interest');
    const types = await store.query<{ type: string }>('SELECT DISTINCT type FROM wallet_activity');
    expect(types.map((t) => t.type)).toContain('TRADE');
    // Re-reading activity from the cursor does not double rows.
    const [dupes] = await store.query<{ n: number }>('SELECT count() - uniqExact(activity_id) AS n FROM wallet_activity FINAL');
    expect(Number(dupes!.n)).toBe(0);
  }, 120_000);
});
