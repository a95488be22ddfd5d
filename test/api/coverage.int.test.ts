/**
 * Coverage stated on every trader, positions and leaderboard response, over what the real pipeline
 * ingested from the simulator (chain source, Data API fast path, sink, position ledger, API with
 * response validation): a service reading the chain from the simulated world's genesis reports its
 * coverage complete; one started at a later block reports that block and its time, not complete, and
 * flags the wallets it saw active before it (their Data API trades older than the coverage) on their
 * trader report and their leaderboard and browse entries. /v1/health states the same coverage.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { loadConfig } from '../../services/config.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { startIngest } from '../../services/ingest/ingest-service.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { walletCoverage } from '../../services/read-models/positions/coverage.js';
import { topicSchemas } from '../../services/read-models/registry.js';
import { SIM_GENESIS_BLOCK } from '../../simulator/chain.js';
import { type RunningSimulator, simulatorUpstreamEnv, startSimulator } from '../../simulator/server.js';
import { startSink, startStatefulProjections } from '../../services/sink/sink-service.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { getJson, waitFor } from '../support/http.js';

const chdbFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-coverage-chdb-'));
const FROZEN_NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const silent = pino({ level: 'silent' });
let databases = 0;

interface Service {
  sim: RunningSimulator;
  store: AnalyticsStore;
  api: ApiHarness;
  get(url: string): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** The whole pipeline against a frozen simulator, its chain source starting at `startBlock(head)`. */
async function startService(startBlock: (head: number) => number, env: Record<string, string> = {}): Promise<Service> {
  const sim = await startSimulator({
    port: 0,
    seed: 11,
    marketCount: 15,
    walletCount: 12,
    historicTrades: 900,
    historyHours: 3,
    clock: () => FROZEN_NOW,
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-coverage-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...simulatorUpstreamEnv(sim),
    CHAIN_START_BLOCK: String(startBlock(sim.chain.head())),
    // A still chain never reorganizes: its head is final.
    CHAIN_CONFIRMATIONS: '0',
    CHAIN_POLL_INTERVAL_MS: '200',
    // The RPC is local: no public endpoint's budget (the simulated world's chain is about 16 hours of blocks).
    CHAIN_RPC_BUDGET_PER_10S: '100000',
    CHAIN_RPC_BATCH_SIZE: '100',
    MARKETS_POLL_INTERVAL_MS: '300',
    TRADES_POLL_INTERVAL_MS: '200',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const store = await openChdbStore({ path: chdbFolder, database: `coverage_${databases++}` });
  await migrate(store);
  const log = await openFileEventLog({ directory: path.join(dataDir, 'log'), schemas: topicSchemas() });
  const ingest = await startIngest(config, log, silent);
  const sink = await startSink(log, store, silent);
  const ledger = await startStatefulProjections(log, store, silent);
  const api = await startApiHarness({ store });
  const key = (await api.admin.createKey('coverage', '2')).api_key;
  return {
    sim,
    store,
    api,
    get: (url) => getJson(`${api.base}/v1${url}`, key),
    async stop() {
      await api.close();
      await ingest.stop();
      await ledger.stop();
      await sink.stop();
      await log.close();
      await store.close();
      await sim.close();
    },
  };
}

/** Waits until the leaderboard states a coverage from `fromBlock` and the ledger has applied the chain up to its end. */
async function waitForCoverage(service: Service, fromBlock: number) {
  await waitFor(
    async () => {
      const board = (await service.get('/leaderboard?limit=5')).body;
      const head = service.sim.chain.head();
      return board.coverage?.from_block === fromBlock && board.coverage.to_block === head && board.data.length > 0;
    },
    90_000,
    'the coverage stated and the chain read to the head',
  );
  // The position ledger has applied every chain event the sink stored.
  await waitFor(
    async () => {
      const [row] = await service.store.query<{ chain: string; ledger: string }>(
        `SELECT toString((SELECT uniqExact(event_id) FROM chain_ledger WHERE kind NOT IN ('watermark', 'block_retracted'))) AS chain,
                toString((SELECT uniqExact(event_id) FROM position_ledger WHERE origin = 'chain')) AS ledger`,
      );
      return row!.chain === row!.ledger;
    },
    30_000,
    'the ledger applying the chain',
  );
}

describe('a service reading the chain from genesis', () => {
  let service: Service;
  beforeAll(async () => {
    service = await startService(() => SIM_GENESIS_BLOCK);
  }, 60_000);
  afterAll(() => service?.stop());

  test('states a complete coverage from the genesis block on every trader, positions and leaderboard response', async () => {
    await waitForCoverage(service, SIM_GENESIS_BLOCK);
    const expected = {
      from_block: SIM_GENESIS_BLOCK,
      from_time: new Date(service.sim.chain.secondOfBlock(SIM_GENESIS_BLOCK) * 1000).toISOString(),
      to_block: service.sim.chain.head(),
      to_time: new Date(service.sim.chain.secondOfBlock(service.sim.chain.head()) * 1000).toISOString(),
      complete: true,
    };
    const board = (await service.get('/leaderboard?limit=50')).body;
    expect(board.coverage).toEqual(expected);
    expect(board.data.every((entry: { wallet_predates: boolean }) => entry.wallet_predates === false)).toBe(true);
    const browse = (await service.get('/traders/browse?limit=5')).body;
    expect(browse.coverage).toEqual(expected);
    expect(browse.data.every((entry: { wallet_predates: boolean }) => entry.wallet_predates === false)).toBe(true);
    // Health states the same coverage; no chain backfill is checkpointed.
    // (The harness's health reads no history fill files: `off`.)
    expect((await service.get('/health')).body.data.coverage).toEqual({
      ...expected,
      backfill: null,
      history: expect.objectContaining({ state: 'off' }),
    });
    const wallets: string[] = board.data.map((entry: { wallet: string }) => entry.wallet);
    expect(wallets.length).toBeGreaterThan(5);
    for (const wallet of wallets) {
      const trader = await service.get(`/traders/${wallet}`);
      expect(trader.status).toBe(200);
      expect(trader.body.data.coverage).toEqual({ ...expected, wallet_predates: false });
    }
    expect((await service.get(`/positions/${wallets[0]}`)).body.data.coverage).toEqual(expected);
    expect((await service.get(`/traders/${wallets[0]}/pnl?days=7`)).body.data.coverage).toEqual(expected);
    // The rule itself, asked as if the coverage were partial, finds no wallet active before the
    // genesis: with every event in the ledger no wallet disposes of shares it never acquired.
    for (const wallet of wallets) {
      expect((await walletCoverage(service.store, wallet, { ...expected, complete: false })).wallet_predates).toBe(false);
    }
  }, 150_000);
});

describe('a service whose chain source starts an hour back', () => {
  let service: Service;
  let start: number;
  beforeAll(async () => {
    // Without the history fill: the coverage stays where the chain source started.
    service = await startService(
      (head) => {
        start = head - 3_600;
        return start;
      },
      { CHAIN_HISTORY: 'off' },
    );
  }, 60_000);
  afterAll(() => service?.stop());

  test('states that block and its time, not complete, and flags the wallets the Data API shows trading before it', async () => {
    await waitForCoverage(service, start);
    const fromMs = service.sim.chain.secondOfBlock(start) * 1000;
    const board = (await service.get('/leaderboard?limit=50')).body;
    expect(board.coverage).toEqual({
      from_block: start,
      from_time: new Date(fromMs).toISOString(),
      to_block: service.sim.chain.head(),
      to_time: new Date(service.sim.chain.secondOfBlock(service.sim.chain.head()) * 1000).toISOString(),
      complete: false,
    });
    // The simulator's own tape: which wallets traded (either side) before the coverage starts.
    const earlier = new Set(
      service.sim.state.trades
        .filter((t) => t.timestamp * 1000 < fromMs)
        .flatMap((t) => [t.walletIndex, t.makerWalletIndex].filter((i) => i >= 0))
        .map((i) => service.sim.state.world.wallets[i]!.address.toLowerCase()),
    );
    const wallets: string[] = board.data.map((entry: { wallet: string }) => entry.wallet);
    const flagged = wallets.filter((wallet) => earlier.has(wallet));
    expect(flagged.length).toBeGreaterThan(3);
    // The Data API's older trades reach the ledger through the trades backfill: wait for them.
    await waitFor(
      async () => {
        for (const wallet of flagged) if (!(await service.get(`/traders/${wallet}`)).body.data?.coverage?.wallet_predates) return false;
        return true;
      },
      60_000,
      'every wallet active before the coverage flagged',
    );
    const trader = (await service.get(`/traders/${flagged[0]}`)).body.data;
    expect(trader.coverage).toEqual({ ...board.coverage, wallet_predates: true });
    expect((await service.get(`/positions/${flagged[0]}`)).body.data.coverage).toEqual(board.coverage);
    for (const wallet of wallets.filter((w) => !earlier.has(w))) {
      expect((await service.get(`/traders/${wallet}`)).body.data.coverage.wallet_predates).toBe(false);
    }
    // Each board entry carries its wallet's flag: the same as /traders/{wallet} states.
    const entries = (await service.get('/leaderboard?limit=50')).body.data as Array<{ wallet: string; wallet_predates: boolean }>;
    expect(
      entries
        .filter((e) => e.wallet_predates)
        .map((e) => e.wallet)
        .sort(),
    ).toEqual([...flagged].sort());
    const browsed = (await service.get(`/traders/browse?limit=50`)).body.data as Array<{ wallet: string; wallet_predates: boolean }>;
    for (const entry of browsed) expect(entry.wallet_predates).toBe(earlier.has(entry.wallet));
    expect((await service.get('/health')).body.data.coverage).toEqual({
      ...board.coverage,
      backfill: null,
      history: expect.objectContaining({ state: 'off' }),
    });
  }, 150_000);
});
