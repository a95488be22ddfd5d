/**
 * The first catalog sync over a simulator holding 100,000 markets, as processes: the simulator and
 * the ingest part (`npm run service -- ingest`) run as children; the ingest is killed with SIGKILL
 * part-way through the sync, started again, resumes where its checkpoint says, and finishes. The
 * event log then holds every market of the catalog - open, closed, archived - and the second run
 * re-read at most the page it was on, not the catalog. (The sync goes on with events; they are
 * checked in the smaller ingestion tests. Throughput: `npm run bench:catalog`.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { type CatalogSyncState, INITIAL_LISTINGS } from '../../services/ingest/catalog-sync.js';
import { STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { waitFor } from '../support/http.js';
import { type Child, freePort, startChild, simulatorUpstreams } from '../support/processes.js';

const TOTAL_MARKETS = 100_000;
const children: Child[] = [];
afterAll(async () => {
  for (const child of children) await child.kill('SIGKILL');
});

test('100,000 markets: complete, and resumable after kill -9', async () => {
  const port = await freePort();
  const simulator = startChild('simulator/main.ts', {
    SIM_PORT: String(port),
    SIM_SEED: '17',
    SIM_MARKET_COUNT: '300',
    SIM_HISTORICAL_MARKETS: String(TOTAL_MARKETS - 300),
    SIM_HISTORIC_TRADES: '2000',
  });
  children.push(simulator);
  await simulator.waitForLog((line) => line.msg === 'upstream simulator listening', 120_000);
  const base = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-catalog-sync-'));
  const env = {
    DATA_DIR: dataDir,
    ...simulatorUpstreams(base),
    // The sync is what is under test: a large Gamma budget, the other pollers kept quiet.
    GAMMA_BUDGET_PER_10S: '5000',
    WS_ENABLED: 'false',
    TRADES_BACKFILL_MARKETS: '0',
    TRACKED_WALLETS_TOP: '0',
    HOLDERS_MARKETS: '0',
    CLOB_POLL_INTERVAL_MS: '600000',
    LOG_LEVEL: 'info',
  };
  const checkpoint = path.join(dataDir, 'ingest', 'catalog-sync.json');
  const progress = (): CatalogSyncState | null => {
    try {
      return JSON.parse(fs.readFileSync(checkpoint, 'utf8')) as CatalogSyncState;
    } catch {
      return null;
    }
  };

  const first = startChild('services/run-part.ts', env, ['ingest']);
  children.push(first);
  await waitFor(async () => (progress()?.completed ?? 0) >= 30_000, 180_000, 'a third of the catalog synced', 100);
  await first.kill('SIGKILL');
  const killedAt = progress()!;
  expect(killedAt.finished_ms).toBeNull();

  const second = startChild('services/run-part.ts', env, ['ingest']);
  children.push(second);
  const resumed = await second.waitForLog((line) => line.msg === 'catalog sync resuming', 60_000);
  expect(Number(resumed.completed)).toBeGreaterThanOrEqual(killedAt.completed);
  const firstEventListing = INITIAL_LISTINGS.findIndex((l) => l.listing === 'events');
  await waitFor(async () => (progress()?.listing ?? 0) >= firstEventListing, 300_000, 'every market listing synced', 200);
  await second.kill('SIGTERM');
  await simulator.kill('SIGTERM');

  // Every market in the log; the resumed run re-read at most the page in flight (plus the open-market polls).
  const log = await openFileEventLog({ directory: path.join(dataDir, 'log'), schemas: topicSchemas() });
  const ids = new Set<string>();
  let messages = 0;
  const consumer = await log.runConsumer({
    groupId: 'verify',
    topics: [STREAMS.markets.topic],
    maxBatchSize: 5_000,
    handleBatch: async (batch) => {
      for (const m of batch.messages) ids.add(STREAMS.markets.codec.decode(m.value).market_id);
      messages += batch.messages.length;
    },
  });
  const end = (await log.positions('verify', STREAMS.markets.topic)).reduce((sum, p) => sum + p.endOffset, 0);
  await waitFor(async () => messages >= end, 60_000, 'the markets topic read');
  await consumer.stop();
  await log.close();
  expect(ids.size).toBe(TOTAL_MARKETS);
  expect(messages).toBeLessThan(TOTAL_MARKETS + 2_000);
}, 600_000);
