/**
 * The first catalog sync over a simulator holding 100,000 markets (SIM: 300 live + 99,700 historical),
 * in markets per second, as a ratio to the same keyset pages fetched and JSON-parsed alone (no
 * normalization, no publishing) in the same run: the ratio is what the sync costs beyond reading
 * Gamma. The sync publishes into a durable file log (fsync per append, as the service runs), with the
 * Gamma request budget lifted so the simulator, not our own pacing, is the limit. Events are synced
 * too and reported separately. Writes bench/results/catalog-sync.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { EventPublisher } from '../services/events/publisher.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import { CatalogSync, INITIAL_LISTINGS } from '../services/ingest/catalog-sync.js';
import { keysetPages } from '../services/ingest/gamma-pages.js';
import { SourceHealth } from '../services/ingest/source-health.js';
import { UnresolvedMarkets } from '../services/ingest/unresolved-markets.js';
import { UpstreamClient } from '../services/ingest/upstream-client.js';
import { allTopicSpecs, topicSchemas } from '../services/read-models/registry.js';
import { startSimulator } from '../simulator/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOTAL = Number(process.env.CATALOG_BENCH_MARKETS ?? 100_000);
const LIVE = 300;

const startedSim = performance.now();
const simulator = await startSimulator({ port: 0, seed: 17, marketCount: LIVE, historicalMarkets: TOTAL - LIVE, historicTrades: 2_000 });
const simulatorStartMs = performance.now() - startedSim;
const gamma = () => new UpstreamClient({ name: 'gamma', baseUrl: simulator.gammaUrl, budgetPer10s: 1_000_000, timeoutMs: 60_000 });

// Baseline: the market listings fetched and parsed, nothing else.
const marketListings = INITIAL_LISTINGS.filter((l) => l.listing === 'markets');
let baselineMarkets = 0;
const baselineStart = performance.now();
for (const { query } of marketListings) {
  for await (const page of keysetPages(gamma(), 'markets', query)) baselineMarkets += page.items.length;
}
const baselineMs = performance.now() - baselineStart;

// The sync: normalize, publish (durable), checkpoint every page; markets first, then events.
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-catalog-'));
const log = await openFileEventLog({ directory: path.join(directory, 'log'), schemas: topicSchemas() });
await log.createTopics(allTopicSpecs());
const health = new SourceHealth();
const sync = new CatalogSync({
  gamma: gamma(),
  publisher: new EventPublisher(log),
  health,
  logger: pino({ level: 'silent' }),
  unresolved: new UnresolvedMarkets(path.join(directory, 'unresolved.json')),
  checkpointFile: path.join(directory, 'catalog-sync.json'),
});
let marketsDoneMs: number | null = null;
const syncStart = performance.now();
const watch = setInterval(() => {
  const phase = health.snapshot().find((s) => s.source === 'gamma.catalog-sync')?.progress?.phase ?? '';
  if (marketsDoneMs === null && phase.includes('events')) marketsDoneMs = performance.now() - syncStart;
}, 5);
await sync.runOnce();
clearInterval(watch);
const syncMs = performance.now() - syncStart;
const marketsMs = marketsDoneMs ?? syncMs;
const progress = health.snapshot().find((s) => s.source === 'gamma.catalog-sync')!.progress!;
await log.close();
await simulator.close();
fs.rmSync(directory, { recursive: true, force: true });

const perSecond = (n: number, ms: number) => Math.round(n / (ms / 1000));
const result = {
  bench: 'catalog-sync',
  catalog_markets: TOTAL,
  simulator_start_ms: Math.round(simulatorStartMs),
  baseline_fetch_parse_markets: baselineMarkets,
  baseline_fetch_parse_ms: Math.round(baselineMs),
  baseline_markets_per_s: perSecond(baselineMarkets, baselineMs),
  sync_markets_ms: Math.round(marketsMs),
  sync_markets_per_s: perSecond(TOTAL, marketsMs),
  sync_total_records: progress.completed,
  sync_total_ms: Math.round(syncMs),
  sync_records_per_s: perSecond(progress.completed, syncMs),
  throughput_ratio_vs_fetch_parse: Math.round((perSecond(TOTAL, marketsMs) / perSecond(baselineMarkets, baselineMs)) * 1000) / 1000,
  note: 'markets/s of the resumable sync (normalize + durable publish + checkpoint per 100-market page) vs fetching and parsing the same pages; the simulator renders every page in the same process',
  node: process.version,
  at: new Date().toISOString(),
};
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', 'catalog-sync.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(result);
