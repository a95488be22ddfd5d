/**
 * End to end on real engines, every part its own OS process: ingest, sink and two API processes
 * (`npm run service -- <part>`, run here as `node --import tsx services/run-part.ts <part>`) over
 * Kafka + the schema registry + PostgreSQL + ClickHouse over HTTP (the chDB-backed harness),
 * against the upstream simulator. The API is stateless: a key registered through one API process
 * works on the other, and both serve the same data. Every upstream trade ends up queryable once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startClickHouseHttpHarness } from '../support/clickhouse-http-harness.js';
import { upstreamTradeIds } from '../support/upstream-truth.js';
import { getJson, postJson, waitFor, walkPages } from '../support/http.js';
import { freePort, runAdminCli, startChild, type Child } from '../support/processes.js';
import { createDatabase, engineAddresses, uniqueName } from './engines.js';

const children: Child[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const child of children.reverse()) await child.kill('SIGTERM');
  for (const cleanup of cleanups) await cleanup();
});

test('ingest, sink and two API processes over Kafka, PostgreSQL and ClickHouse HTTP: every upstream trade once', async () => {
  const simulator = startChild('simulator/main.ts', {
    SIM_PORT: '0',
    SIM_SEED: '33',
    SIM_MARKET_COUNT: '30',
    SIM_HISTORIC_TRADES: '2000',
    SIM_TRADES_PER_SECOND: '0',
  });
  children.push(simulator);
  const simulatorBase = String((await simulator.waitForLog((l) => typeof l.baseUrl === 'string', 30_000)).baseUrl);
  const truth = await upstreamTradeIds(simulatorBase);
  expect(truth.size).toBeGreaterThan(1500);

  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-engines-'));
  const harness = await startClickHouseHttpHarness(path.join(workDir, 'clickhouse'));
  cleanups.push(async () => {
    await harness.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  });
  const { kafkaBrokers, schemaRegistryUrl } = engineAddresses();
  const env = {
    KAFKA_BROKERS: kafkaBrokers,
    SCHEMA_REGISTRY_URL: schemaRegistryUrl,
    KAFKA_NAMESPACE: `${uniqueName('e2e')}.`,
    CLICKHOUSE_URL: harness.url,
    CLICKHOUSE_DATABASE: uniqueName('e2e'),
    DATABASE_URL: await createDatabase('e2e'),
    DATA_DIR: path.join(workDir, 'data'),
    POLYMARKET_GAMMA_URL: `${simulatorBase}/gamma`,
    POLYMARKET_CLOB_URL: `${simulatorBase}/clob`,
    POLYMARKET_DATA_URL: `${simulatorBase}/data`,
    TRADES_POLL_INTERVAL_MS: '500',
    MARKETS_POLL_INTERVAL_MS: '3000',
    TRADES_BACKFILL_MARKETS: '0',
  };
  const part = async (name: string, extra: Record<string, string> = {}) => {
    const child = startChild('services/run-part.ts', { ...env, ...extra }, [name]);
    children.push(child);
    await child.waitForLog((l) => l.msg === 'part started' && l.part === name, 90_000);
    return child;
  };

  // The sink migrates ClickHouse first (its migrations are not guarded against concurrent runners);
  // the two API processes start together and share the PostgreSQL migration through an advisory lock.
  await part('sink');
  const apiPorts = [await freePort(), await freePort()];
  await Promise.all(apiPorts.map((port) => part('api', { PORT: String(port) })));
  const ingest = await part('ingest');
  const first = `http://127.0.0.1:${apiPorts[0]}`;
  const second = `http://127.0.0.1:${apiPorts[1]}`;

  const registered = await postJson(`${first}/v1/agents/register`, { name: 'e2e-engines' });
  expect(registered.status).toBe(201);
  const key = registered.body.data.api_key as string;
  // The trade feed is Tier 2: credits (added with the admin CLI, straight into PostgreSQL) unlock it;
  // the API processes' meters re-read balances within a second.
  await runAdminCli(env.DATA_DIR, ['credits', 'add', key, '1000'], { DATABASE_URL: env.DATABASE_URL });
  await waitFor(async () => (await getJson(`${second}/v1/trades?limit=1`, key)).status === 200, 30_000, 'credits to unlock Tier 2');

  await waitFor(
    async () => {
      const { body } = await getJson(`${second}/v1/health`, key);
      return body.data.counts.trades >= truth.size && body.data.pipeline.sink_lag['tapeline.trades.v1'] === 0 ? true : null;
    },
    150_000,
    'every upstream trade to be queryable through the second API process',
    500,
  );

  const viaFirst = await walkPages(`${first}/v1/trades?limit=500`, key);
  const viaSecond = await walkPages(`${second}/v1/trades?limit=500`, key);
  const ids = viaSecond.items.map((t: any) => t.trade_id as string);
  expect(ids.length).toBe(truth.size);
  expect(new Set(ids)).toEqual(truth);
  expect(viaFirst.items.map((t: any) => t.trade_id)).toEqual(ids);
  expect(ingest.process.pid).not.toBe(children[1]!.process.pid);
}, 300_000);
