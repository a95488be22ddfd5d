/**
 * The webhook pipeline as separate processes on real engines: a subscription made through an `api`
 * process, live trades from the simulator through the `ingest` process onto Kafka, the `signals`
 * process enqueuing into the PostgreSQL outbox, and the `webhooks` process delivering signed requests
 * to a local receiver, which verify with the signing rule. Then the `copy` process copies the traders
 * of those trades into PostgreSQL, and the `api` process streams them on the `copy` channel from there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { verifyWebhook } from '../../clients/webhooks/verify.js';
import { startClickHouseHttpHarness } from '../support/clickhouse-http-harness.js';
import { postJson, requestJson, waitFor } from '../support/http.js';
import { freePort, runAdminCli, startChild, type Child } from '../support/processes.js';
import { messagesOf, openSse } from '../support/stream-clients.js';
import { startReceiver } from '../webhooks/receiver.js';
import { createDatabase, engineAddresses, uniqueName } from './engines.js';

const children: Child[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const child of children.reverse()) await child.kill('SIGTERM');
  for (const cleanup of cleanups) await cleanup();
});

test('signals and webhooks parts deliver signed trade.executed events from live upstream trades', async () => {
  const simulator = startChild('simulator/main.ts', {
    SIM_PORT: '0',
    SIM_SEED: '44',
    SIM_MARKET_COUNT: '20',
    SIM_HISTORIC_TRADES: '200',
    SIM_TRADES_PER_SECOND: '2',
    // Few traders, so each trades again soon after the copy subscriptions to them are made.
    SIM_WALLET_COUNT: '3',
  });
  children.push(simulator);
  const simulatorBase = String((await simulator.waitForLog((l) => typeof l.baseUrl === 'string', 30_000)).baseUrl);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-hooks-engines-'));
  const harness = await startClickHouseHttpHarness(path.join(workDir, 'clickhouse'));
  cleanups.push(async () => {
    await harness.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  });
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  const { kafkaBrokers, schemaRegistryUrl } = engineAddresses();
  const apiPort = await freePort();
  const env = {
    KAFKA_BROKERS: kafkaBrokers,
    SCHEMA_REGISTRY_URL: schemaRegistryUrl,
    KAFKA_NAMESPACE: `${uniqueName('hooks')}.`,
    CLICKHOUSE_URL: harness.url,
    CLICKHOUSE_DATABASE: uniqueName('hooks'),
    DATABASE_URL: await createDatabase('hooks'),
    DATA_DIR: path.join(workDir, 'data'),
    POLYMARKET_GAMMA_URL: `${simulatorBase}/gamma`,
    POLYMARKET_CLOB_URL: `${simulatorBase}/clob`,
    POLYMARKET_DATA_URL: `${simulatorBase}/data`,
    TRADES_POLL_INTERVAL_MS: '500',
    TRADES_BACKFILL_MARKETS: '0',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    PORT: String(apiPort),
  };
  const part = async (name: string) => {
    const child = startChild('services/run-part.ts', env, [name]);
    children.push(child);
    await child.waitForLog((l) => l.msg === 'part started' && l.part === name, 90_000);
  };

  await part('api');
  const base = `http://127.0.0.1:${apiPort}/v1`;
  const key = (await postJson(`${base}/agents/register`, { name: 'hooks' })).body.data.api_key as string;
  const subscription = await postJson(`${base}/webhooks`, { url: `${receiver.url}/ok`, events: ['trade.executed'] }, { apiKey: key });
  expect(subscription.status).toBe(201);
  await part('signals');
  await part('webhooks');
  await part('copy');
  await part('ingest');

  const deliveries = await waitFor(async () => (receiver.at('/ok').length >= 3 ? receiver.at('/ok') : null), 90_000, 'webhook deliveries');
  for (const delivery of deliveries.slice(0, 3)) {
    expect(verifyWebhook({ body: delivery.body, headers: delivery.headers, secret: subscription.body.data.secret })).toEqual({ ok: true });
    expect(JSON.parse(delivery.body)).toMatchObject({ event: 'trade.executed', source: 'simulator' });
    expect(delivery.headers['x-service-event']).toBe('trade.executed');
  }

  // The copy channel across processes: the copy process records into PostgreSQL, the api process streams from it.
  const follower = (await runAdminCli(env.DATA_DIR, ['keys', 'create', '--tier', '2', '--name', 'follower'], env)).api_key as string;
  const leaders = [...new Set(deliveries.map((d) => JSON.parse(d.body).wallet as string))];
  for (const leader of leaders) {
    const created = await requestJson('POST', `${base}/copy/subscriptions`, follower, {
      leader_wallet: leader,
      sizing: { rule: 'fixed', usdc: 5 },
    });
    expect(created.status).toBe(201);
  }
  const stream = await openSse(`http://127.0.0.1:${apiPort}`, 'channel=copy', follower);
  expect(stream.status).toBe(200);
  await waitFor(async () => (messagesOf(stream, 'copy').length >= 2 ? true : null), 90_000, 'copy events on the stream');
  stream.close();
  const streamed = messagesOf(stream, 'copy').map((m) => m.data);
  const intents = (await requestJson('GET', `${base}/copy/intents?limit=500`, follower, undefined)).body.data as Array<{
    trade_intent_id: number;
  }>;
  const known = new Set(intents.map((i) => i.trade_intent_id));
  for (const event of streamed) {
    expect(['copy.executed', 'risk.blocked']).toContain(event.event);
    expect(leaders).toContain(event.leader_wallet);
    expect(known.has(event.trade_intent_id)).toBe(true);
  }
  expect(new Set(streamed.map((e) => e.id)).size).toBe(streamed.length);
}, 300_000);
