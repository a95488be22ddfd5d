/**
 * The lifecycle processor over a real file log and a real PGlite control store: market and
 * resolution events in, transitions out, once each - also when the processor is stopped and started
 * again, and when a batch is redelivered after its transitions were published but before its states
 * were stored (a crash between the two).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { migrateControlStore } from '../../services/control/migrate.js';
import { openPgliteStore } from '../../services/control/pglite-store.js';
import { EventPublisher } from '../../services/events/publisher.js';
import type { MarketLifecycleTransition } from '../../services/events/types.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { startLifecycle } from '../../services/lifecycle/lifecycle-processor.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { chainResolution, conditionId, marketResolved, marketUpserted, T0 } from '../support/events.js';
import { waitFor } from '../support/http.js';

const silent = pino({ level: process.env.TEST_LOG ?? 'silent' });
const DAY = 86_400_000;
const A = conditionId(0xa1);
const B = conditionId(0xb2);
const OLD = conditionId(0xc3);

let log: EventLog;
let control: ControlStore;
let publisher: EventPublisher;

beforeAll(async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-lifecycle-'));
  log = await openFileEventLog({ directory: path.join(directory, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 20 });
  await log.createTopics(allTopicSpecs());
  control = await openPgliteStore(path.join(directory, 'pglite'));
  await migrateControlStore(control);
  publisher = new EventPublisher(log);
}, 60_000);
afterAll(async () => {
  await log.close();
  await control.close();
});

/** Every transition on the lifecycle topic so far, in log order per market. */
async function transitions(): Promise<MarketLifecycleTransition[]> {
  const out: MarketLifecycleTransition[] = [];
  const [position] = await log.positions('probe', STREAMS.marketLifecycle.topic);
  void position;
  const group = `probe-${Math.random()}`;
  const consumer = await log.runConsumer({
    groupId: group,
    topics: [STREAMS.marketLifecycle.topic],
    handleBatch: async (batch) => {
      for (const m of batch.messages) out.push(STREAMS.marketLifecycle.codec.decode(m.value));
    },
  });
  const ends = await log.positions(group, STREAMS.marketLifecycle.topic);
  const total = ends.reduce((sum, p) => sum + p.endOffset, 0);
  await waitFor(async () => out.length >= total, 10_000, 'lifecycle topic read');
  await consumer.stop();
  return out.sort((a, b) => a.market_id.localeCompare(b.market_id) || a.revision - b.revision);
}

test('markets and resolutions become transitions once each, across restarts and redelivery', async () => {
  await publisher.publish('markets', [
    marketUpserted({ market_id: A, event_id: 'a1', status: 'active', ingested_at_ms: T0 }),
    marketUpserted({ market_id: B, event_id: 'b1', status: 'active', ingested_at_ms: T0 }),
    // Settled in 2024, first seen now: history.
    marketUpserted({
      market_id: OLD,
      event_id: 'old1',
      status: 'resolved',
      outcome_prices: [1, 0],
      resolved_outcome: 'Yes',
      resolved_at_ms: Date.UTC(2024, 5, 1),
      ingested_at_ms: T0,
    }),
  ]);
  let lifecycle = await startLifecycle({ log, control, publisher, logger: silent, clock: () => T0 });
  await waitFor(async () => lifecycle.stats.observations >= 3, 10_000, 'first observations');
  await lifecycle.stop();

  // While the processor is down: A closes then resolves late, B is voided, and the websocket
  // reports A's resolution too (same payouts).
  await publisher.publish('markets', [
    marketUpserted({ market_id: A, event_id: 'a2', status: 'closed', closed_ms: T0 + DAY, ingested_at_ms: T0 + DAY }),
    marketUpserted({
      market_id: A,
      event_id: 'a3',
      status: 'resolved',
      outcome_prices: [0, 1],
      resolved_outcome: 'No',
      resolved_at_ms: T0 + 30 * DAY,
      ingested_at_ms: T0 + 30 * DAY,
    }),
    marketUpserted({
      market_id: B,
      event_id: 'b2',
      status: 'voided',
      outcome_prices: [0.5, 0.5],
      resolved_outcome: '50-50',
      resolved_at_ms: T0 + 2 * DAY,
      ingested_at_ms: T0 + 2 * DAY,
    }),
  ]);
  await publisher.publish('marketResolutions', [
    marketResolved({ market_id: A, origin: 'clob-ws', payouts: [0, 1], winning_outcome_index: 1, resolved_at_ms: T0 + 30 * DAY }),
  ]);
  lifecycle = await startLifecycle({ log, control, publisher, logger: silent, clock: () => T0 + 31 * DAY });
  await waitFor(async () => lifecycle.stats.observations >= 4, 10_000, 'observations after the restart');
  await lifecycle.stop();

  // A crash after publishing but before storing states: replay everything from the start with the
  // states forgotten. The same transitions come out with the same ids.
  await control.query('DELETE FROM market_lifecycle_states');
  const replay = await startLifecycle({
    log,
    control,
    publisher,
    logger: silent,
    groupId: 'tapeline-lifecycle-replay',
    clock: () => T0 + 31 * DAY,
  });
  await waitFor(async () => replay.stats.observations >= 7, 10_000, 'replayed observations');
  await replay.stop();

  const all = await transitions();
  const distinct = new Map(all.map((t) => [t.event_id, t]));
  expect(all.length).toBe(2 * distinct.size);
  const summary = [...distinct.values()].map((t) => [t.market_id, t.revision, t.kind, t.to_state, t.notify, t.resolved_outcome]);
  expect(summary).toEqual([
    [A, 1, 'listed', 'active', false, null],
    [A, 2, 'closed', 'closed', false, null],
    [A, 3, 'resolved', 'resolved', true, 'No'],
    [B, 1, 'listed', 'active', false, null],
    [B, 2, 'voided', 'voided', true, '50-50'],
    [OLD, 1, 'resolved', 'resolved', false, 'Yes'],
  ]);
  expect(distinct.get(`${A}:3`)).toMatchObject({
    final_yes_price: 0,
    final_no_price: 1,
    occurred_at_ms: T0 + 30 * DAY,
    authority: 'gamma',
  });
  const [stored] = await control.query<{ state: string; revision: number }>(
    'SELECT state, revision FROM market_lifecycle_states WHERE market_id = $1',
    [A],
  );
  expect(stored).toMatchObject({ state: 'resolved', revision: 3 });
}, 60_000);

test('the chain is the authority: it confirms a matching settlement, corrects a different one, and a retraction changes nothing', async () => {
  const C = conditionId(0xd4);
  const D = conditionId(0xe5);
  await publisher.publish('markets', [
    marketUpserted({
      market_id: C,
      event_id: 'c1',
      status: 'resolved',
      outcome_prices: [1, 0],
      resolved_outcome: 'Yes',
      resolved_at_ms: T0 + DAY,
      ingested_at_ms: T0 + DAY,
    }),
    marketUpserted({
      market_id: D,
      event_id: 'd1',
      status: 'resolved',
      outcome_prices: [1, 0],
      resolved_outcome: 'Yes',
      resolved_at_ms: T0 + DAY,
      ingested_at_ms: T0 + DAY,
    }),
  ]);
  await publisher.publish('chainResolutions', [
    // Orphaned by a reorg: says nothing.
    chainResolution({
      market_id: D,
      event_id: '137:0xaa:1',
      payouts: [0, 1],
      payout_numerators: ['0', '1'],
      winning_outcome_index: 1,
      retracted: true,
    }),
    chainResolution({ market_id: C, event_id: '137:0xaa:2', payouts: [1, 0], block_time_ms: T0 + DAY + 5_000 }),
    chainResolution({
      market_id: D,
      event_id: '137:0xaa:3',
      payouts: [0, 1],
      payout_numerators: ['0', '1'],
      winning_outcome_index: 1,
      block_time_ms: T0 + DAY + 5_000,
    }),
  ]);
  const lifecycle = await startLifecycle({ log, control, publisher, logger: silent, groupId: 'tapeline-lifecycle-chain', clock: () => T0 });
  await waitFor(async () => lifecycle.stats.observations >= 7 + 4, 10_000, 'chain observations');
  await lifecycle.stop();
  const mine = (await transitions()).filter((t) => t.market_id === C || t.market_id === D);
  const distinct = new Map(mine.map((t) => [t.event_id, t]));
  const summary = [...distinct.values()].map((t) => [t.market_id, t.revision, t.kind, t.authority, t.resolved_outcome]);
  expect(summary).toEqual([
    [C, 1, 'resolved', 'gamma', 'Yes'],
    [C, 2, 'confirmed', 'chain', 'Yes'],
    [D, 1, 'resolved', 'gamma', 'Yes'],
    [D, 2, 'corrected', 'chain', 'No'],
  ]);
}, 60_000);
