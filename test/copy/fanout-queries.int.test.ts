/**
 * Copy fan-out costs the control store a fixed number of statements per fill, whatever the number of
 * subscriptions following the leader (issue 59 H2: it ran two or three per subscription, and a thousand
 * subscriptions held the one-connection store for seconds). Counted on the real store (PGlite) through
 * the port: one read of every subscription's copied figures and one insert of every intent per chunk.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { type CopyEngine, startCopyEngine } from '../../services/copy/copy-engine.js';
import { EventPublisher } from '../../services/events/publisher.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import type { ControlStore, SqlExecutor } from '../../services/ports/control-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { allTopicSpecs, topicSchemas } from '../../services/read-models/registry.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { chainFill, conditionId, T0, txHash, walletAddress } from '../support/events.js';
import { requestJson, waitFor } from '../support/http.js';

const LEADER = walletAddress(0xfee);
const MARKET = conditionId(9);
const PER_ACCOUNT = 20;

let log: EventLog;
let api: ApiHarness;
let engine: CopyEngine;
let now = T0 - 1_000_000;
const statements: string[] = [];

/** The control store, every statement it is sent (in or out of a transaction) recorded. */
function counting(control: ControlStore): ControlStore {
  const record = (executor: SqlExecutor): SqlExecutor => ({
    query: (sql, params) => {
      statements.push(sql);
      return executor.query(sql, params);
    },
  });
  return { ...control, ...record(control), transaction: (work) => control.transaction((tx) => work(record(tx))) };
}

beforeAll(async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-fanout-queries-'));
  log = await openFileEventLog({ directory: path.join(directory, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 10 });
  await log.createTopics(allTopicSpecs());
  api = await startApiHarness({ database: 'fanout_queries', env: { COPY_SUBSCRIPTIONS_PER_ACCOUNT: '50' }, clock: () => now });
  engine = await startCopyEngine({
    log,
    control: counting(api.control),
    store: api.store,
    logger: pino({ level: 'silent' }),
    maxFillAgeMs: 120_000,
    maxPendingPerSubscription: 100,
    accountEventRetentionMs: 86_400_000,
    fanoutChunk: 100,
    clock: () => now,
    fromBeginning: true,
  });
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await api?.close();
  await log?.close();
});

test('one read and one insert of intents per fill for 40 subscriptions of two accounts; decisions as before', async () => {
  const keys = [(await api.admin.createKey('fan-a', '2')).api_key, (await api.admin.createKey('fan-b', '2')).api_key];
  for (const key of keys) {
    for (let i = 0; i < PER_ACCOUNT; i++) {
      const created = await requestJson('POST', `${api.base}/v1/copy/subscriptions`, key, {
        leader_wallet: LEADER,
        sizing: { rule: 'fixed', usdc: 10 },
      });
      expect(created.status).toBe(201);
    }
  }
  now = T0 + 10_000;
  const fill = (n: number, side: 'buy' | 'sell', shares: number, price: number) =>
    chainFill({
      tx_hash: txHash(0x900 + n),
      wallet: LEADER,
      market_id: MARKET,
      ledger_group: MARKET,
      block_time_ms: T0 + 9_000,
      fill: { side, asset_id: '777', shares_micro: String(shares * 1e6), usdc_micro: String(Math.round(shares * price * 1e6)), price },
    });
  const publisher = new EventPublisher(log);
  statements.length = 0;
  await publisher.publish('chainLedger', [fill(1, 'buy', 100, 0.5)]);
  await waitFor(async () => engine.stats.intents >= 2 * PER_ACCOUNT, 20_000, 'the buy decided for every subscription', 10);
  await publisher.publish('chainLedger', [fill(2, 'sell', 100, 0.4)]);
  await waitFor(async () => engine.stats.intents >= 4 * PER_ACCOUNT, 20_000, 'the sell decided for every subscription', 10);

  const onIntents = statements.filter((sql) => /copy_trade_intents/.test(sql));
  expect(onIntents.length).toBe(4);
  expect(engine.stats).toMatchObject({ intents: 4 * PER_ACCOUNT, blocked: 0, duplicates: 0 });

  // Each subscription bought 10 USDC = 20 shares at 0.5, then sold what 10 USDC buys at 0.4 (25 shares), capped at the 20 held.
  const [a] = keys;
  const intents = (await requestJson('GET', `${api.base}/v1/copy/intents?limit=100`, a!)).body.data;
  expect(intents).toHaveLength(2 * PER_ACCOUNT);
  const bySide = (side: string) =>
    intents.filter((i: any) => i.side === side).map((i: any) => [i.status, i.child_size_usdc, i.child_shares]);
  expect(bySide('buy')).toEqual(Array(PER_ACCOUNT).fill(['dry_run', 10, 20]));
  expect(bySide('sell')).toEqual(Array(PER_ACCOUNT).fill(['dry_run', 8, 20]));
});
