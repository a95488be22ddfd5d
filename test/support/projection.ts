/**
 * Projection tests in the Given/When/Then style: given these events on their streams, the real sink
 * writes them into chDB (through each read model's row mapping and migrations), then a test checks
 * the rows and the API's response body (served with response validation on). Each harness has its
 * own file log, database and control store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { freshAnalyticsStore } from './analytics-template.js';
import { type EventOfStream, EventPublisher } from '../../services/events/publisher.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { marksOf } from '../../services/read-models/marks/market-marks.js';
import { snapshotsOf } from '../../services/read-models/positions/wallet-snapshots.js';
import { allTopicSpecs, type StreamName, topicSchemas } from '../../services/read-models/registry.js';
import {
  LEDGER_GROUP_ID,
  STATEFUL_PROJECTIONS,
  type SinkService,
  sinkLag,
  sinkTopics,
  startSink,
  startStatefulProjections,
} from '../../services/sink/sink-service.js';
import { type ApiHarness, startApiHarness } from './api-harness.js';
import { getJson, type JsonResponse, waitFor } from './http.js';

export type Given = { [N in StreamName]?: EventOfStream<N>[] };

export interface ProjectionHarness {
  store: AnalyticsStore;
  /** The store's chDB folder (a second chDB session in this process must use the same one). */
  chdbPath: string;
  /** The event log the sink consumes (for tests that run a real producer, such as the ingest part). */
  log: EventLog;
  api: ApiHarness;
  /** A Tier 2 key (every read endpoint). */
  key: string;
  /**
   * Publishes the events (in the order given, stream by stream), waits until the sink has written them
   * and refreshes the marks and wallet snapshots (`refresh: false`: not).
   */
  given(events: Given, options?: { refresh?: boolean }): Promise<void>;
  /** Runs a query against the harness's database. */
  rows<Row = Record<string, unknown>>(sql: string, params?: Record<string, unknown>): Promise<Row[]>;
  /** GET `/v1<path>` with the Tier 2 key. */
  get<T = any>(pathAndQuery: string): Promise<JsonResponse<T>>;
  close(): Promise<void>;
}

export async function projectionHarness(name: string): Promise<ProjectionHarness> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), `tapeline-projection-${name}-`));
  const log: EventLog = await openFileEventLog({
    directory: path.join(directory, 'log'),
    schemas: topicSchemas(),
    fsync: false,
    pollIntervalMs: 20,
  });
  await log.createTopics(allTopicSpecs());
  const chdbPath = path.join(directory, 'chdb');
  const store = await freshAnalyticsStore(chdbPath, 'projection');
  const sink: SinkService = await startSink(log, store, pino({ level: 'silent' }));
  const ledger: SinkService = await startStatefulProjections(log, store, pino({ level: 'silent' }));
  const publisher = new EventPublisher(log);
  const api = await startApiHarness({ store });
  const key = (await api.admin.createKey(`${name}-tier2`, '2')).api_key;
  return {
    store,
    chdbPath,
    log,
    api,
    key,
    async given(events, options) {
      for (const [stream, list] of Object.entries(events) as Array<[StreamName, never[]]>) await publisher.publish(stream, list);
      await waitFor(
        async () =>
          Object.values(await sinkLag(log)).every((lag) => lag === 0) &&
          Object.values(await sinkLag(log, sinkTopics(STATEFUL_PROJECTIONS), LEDGER_GROUP_ID)).every((lag) => lag === 0),
        20_000,
        'the sink to write the given events',
        20,
      );
      // The jobs that keep market_marks (what per-wallet reads value positions with) and
      // wallet_snapshots (each wallet's rows those reads serve) run in the service every
      // MARKET_MARKS_INTERVAL_MS and WALLET_SNAPSHOTS_INTERVAL_MS; here once the sink is done.
      if (options?.refresh === false) return;
      await marksOf(store).refresh();
      await snapshotsOf(store).refresh();
    },
    rows: (sql, params) => store.query(sql, params),
    get: (pathAndQuery) => getJson(`${api.base}/v1${pathAndQuery}`, key),
    async close() {
      await api.close();
      await ledger.stop();
      await sink.stop();
      await log.close();
      await store.close();
    },
  };
}
