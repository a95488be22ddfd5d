/**
 * The chain source end to end: the service as a child process against the simulator (Gamma, Data API
 * and Polygon JSON-RPC), reading settlement events from a block 25 minutes back. It is killed with
 * SIGKILL while catching up and restarted; then a reorg of 3 or more blocks (deeper than its 1
 * confirmation) replaces blocks it has published, fills among them. Afterwards every simulator fill of
 * the covered blocks is served exactly once with both sides, at the coordinates the chain now has, and
 * the chain candles hold exactly the taker fills of the chain as it now is (the orphaned ones taken back
 * out).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChainLogEntry } from '../../simulator/chain.js';
import { type RunningSimulator, simulatorUpstreamEnv, startSimulator } from '../../simulator/server.js';
import { getJson, waitFor, walkPages } from '../support/http.js';
import { freePort, REPO_ROOT, runAdminCli, startChild, type Child } from '../support/processes.js';
import { execFile } from 'node:child_process';

const children: Child[] = [];
let sim: RunningSimulator;
afterAll(async () => {
  for (const child of children) await child.kill('SIGKILL');
  await sim?.close();
});

function queryChdb(dataDir: string, sql: string): Promise<any[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'test/support/chdb-query.ts', dataDir, sql],
      { cwd: REPO_ROOT },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    );
  });
}

const micro = (n: number) => String(Math.round(n * 1e6));

/** Every fill the simulator settled in [fromSecond, toSecond]: one taker and (with a market maker) one maker record per trade. */
function tapeFills(fromSecond: number, toSecond: number): string[] {
  const { wallets } = sim.state.world;
  return sim.state.trades
    .filter((t) => t.timestamp >= fromSecond && t.timestamp <= toSecond)
    .flatMap((t) => {
      const taker = `${t.transactionHash}|${wallets[t.walletIndex]!.address}|taker|${t.side.toLowerCase()}|${micro(t.size)}`;
      if (t.makerWalletIndex < 0) return [taker];
      return [
        taker,
        `${t.transactionHash}|${wallets[t.makerWalletIndex]!.address}|maker|${t.side === 'BUY' ? 'sell' : 'buy'}|${micro(t.size)}`,
      ];
    })
    .sort();
}

test('kill -9 while catching up, a reorg of 3 or more blocks: every fill once, both sides, at the current coordinates; candles exact', async () => {
  sim = await startSimulator({
    seed: 5,
    marketCount: 60,
    walletCount: 60,
    historyHours: 6,
    historicTrades: 3000,
    tradesPerSecond: 2,
    port: 0,
  });
  const start = sim.chain.head() - 1500;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-chain-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...simulatorUpstreamEnv(sim),
    DATA_DIR: dataDir,
    PORT: String(port),
    CHAIN_START_BLOCK: String(start),
    // The coverage under test starts at the start block: no history fill below it.
    CHAIN_HISTORY: 'off',
    CHAIN_CONFIRMATIONS: '1',
    CHAIN_LOG_RANGE_BLOCKS: '10',
    CHAIN_LOG_RANGE_MAX_BLOCKS: '10',
    CHAIN_RPC_BUDGET_PER_10S: '100000',
    CHAIN_RPC_BATCH_SIZE: '50',
    CHAIN_POLL_INTERVAL_MS: '300',
    TRADES_POLL_INTERVAL_MS: '1000',
    TRADES_BACKFILL_MARKETS: '0',
    MARKETS_POLL_INTERVAL_MS: '10000',
    RECONCILIATION_INTERVAL_MS: '2000',
    WS_ENABLED: 'false',
  };
  const startService = async () => {
    const service = startChild('services/main.ts', env);
    children.push(service);
    await service.waitForLog((l) => l.msg === 'tapeline is serving', 60_000);
    return service;
  };
  const chainHealth = async (key: string) => (await getJson(`${base}/v1/health`, key)).body.data;
  // What the assertions read comes through the chain ledger and markets topics. The Data API tape on
  // the trades topic is polled every second the whole time, so on a loaded machine its lag is rarely 0
  // at the moment of a check (CI at 9f0d1dc timed out here with it stuck at 1), and no assertion reads it.
  const chainSinkLag = (health: any) =>
    Object.entries(health.pipeline.sink_lag as Record<string, number>)
      .filter(([topic]) => topic !== 'tapeline.trades.v1')
      .reduce((sum, [, n]) => sum + n, 0);

  // 1. Killed with SIGKILL part-way through the catch-up.
  const first = await startService();
  const key = (await runAdminCli(dataDir, ['keys', 'create', '--tier', '2', '--name', 'e2e'])).api_key as string;
  await waitFor(
    async () => (await chainHealth(key)).chain.ingested_block >= start + 300,
    60_000,
    'the chain source a third of the way',
    50,
  );
  await first.kill('SIGKILL');

  // 2. Restarted: it resumes from its checkpoint and reaches the head.
  await startService();
  // Caught up to a block once the tables cover it: covered_to is the lowest of the partitions'
  // watermarks as the sink wrote them (a watermark goes to every partition after each range), so every
  // fill up to it is in the tables. Once true it stays true. Requiring the chain's lag and the sink's
  // lag to be 0 at one check instead timed out on a loaded machine (CI at 5e33d84): blocks come every
  // 2 s, and the health's sink lag is a sample up to 5 s old.
  const caughtUp = async (atLeast: number) => {
    // On a timeout the message says where the source, the tables and the sink stood (CI at abef7f5
    // timed out here after the reorg with nothing to tell a stalled source from a slow sink).
    let last: any = null;
    try {
      return await waitFor(
        async () => {
          const health = await chainHealth(key);
          last = health;
          return health.chain.covered_to && Date.parse(health.chain.covered_to) >= sim.chain.secondOfBlock(atLeast) * 1000 ? health : null;
        },
        // A reorg's retraction runs six mutations before the sink writes the next watermark, each slower on
        // a loaded machine (CI at abef7f5 ran this file for 235 s and timed out here at 90 s).
        150_000,
        `the tables covering block ${atLeast}`,
        200,
      );
    } catch (error) {
      const state = last && {
        head: sim.chain.head(),
        chain: last.chain,
        sink_lag: last.pipeline.sink_lag,
        issues: last.issues,
      };
      throw new Error(`${(error as Error).message} (second ${sim.chain.secondOfBlock(atLeast)}); last health: ${JSON.stringify(state)}`);
    }
  };
  const served = async (fromMs: number, toMs: number) =>
    (await walkPages(`${base}/v1/trades?role=all&limit=500&from=${new Date(fromMs).toISOString()}&to=${new Date(toMs).toISOString()}`, key))
      .items;
  let health = await caughtUp(sim.chain.head() - 2);
  const coveredFrom = Date.parse(health.chain.covered_from);
  let coveredTo = Date.parse(health.chain.covered_to);
  // Coverage starts at the first event at or after the start block (a few seconds in at 2 trades/s).
  expect(coveredFrom).toBeGreaterThanOrEqual(sim.chain.secondOfBlock(start) * 1000);
  expect(coveredFrom).toBeLessThan(sim.chain.secondOfBlock(start + 60) * 1000);
  const fills = await served(coveredFrom, coveredTo + 1);
  expect(fills.every((t: any) => t.origin === 'chain')).toBe(true);
  expect(new Set(fills.map((t: any) => t.trade_id)).size).toBe(fills.length);
  expect(fills.map((t: any) => `${t.tx_hash}|${t.wallet}|${t.role}|${t.side}|${t.size_shares_micro}`).sort()).toEqual(
    tapeFills(coveredFrom / 1000, coveredTo / 1000),
  );

  // 3. A reorg replaces the newest blocks down to two below the newest one published (with 1
  // confirmation that is at least 3 blocks), once those two hold fills: a retraction is published only for
  // a block whose events were, and a reorg of blocks without any proves nothing. Trades are random (2 a
  // second) and a loaded machine can lag the head, so the condition is on what was published, not on the
  // chain's newest blocks (a run at 2003752 reorganised 3 blocks whose only fills were not published yet).
  const orphanedFrom = await waitFor(
    async () => {
      const ingested: number | null = (await chainHealth(key)).chain.ingested_block;
      if (ingested === null || ingested < sim.chain.head() - 3) return null;
      const fills = sim.chain.logs({ fromBlock: ingested - 1, toBlock: ingested, addresses: null, topics: [] });
      return fills.length > 0 ? ingested - 1 : null;
    },
    30_000,
    'fills in the newest 2 published blocks',
    20,
  );
  const reorged = sim.reorgFrom(orphanedFrom);
  expect(reorged.from).toBe(orphanedFrom);
  expect(reorged.to - reorged.from + 1).toBeGreaterThanOrEqual(3);
  health = await waitFor(
    async () => {
      const now = await chainHealth(key);
      return now.chain.reorgs >= 1 ? now : null;
    },
    30_000,
    'the reorg repaired',
    100,
  );
  // Counted per published block that had events: the retraction reached the log (step 4 checks the table).
  expect(health.chain.retracted_blocks).toBeGreaterThanOrEqual(1);
  health = await caughtUp(reorged.to + 5);
  coveredTo = Date.parse(health.chain.covered_to);
  const window = await served(sim.chain.secondOfBlock(reorged.from - 20) * 1000, coveredTo + 1);
  expect(window.map((t: any) => `${t.tx_hash}|${t.wallet}|${t.role}|${t.side}|${t.size_shares_micro}`).sort()).toEqual(
    tapeFills(sim.chain.secondOfBlock(reorged.from - 20), coveredTo / 1000),
  );
  // At the coordinates the chain has now.
  const now = new Map<string, ChainLogEntry>();
  for (const log of sim.chain.logs({ fromBlock: reorged.from - 20, toBlock: sim.chain.head(), addresses: null, topics: [] }))
    now.set(`${log.transactionHash}:${log.logIndex}`, log);
  for (const t of window) {
    expect(now.get(`${t.tx_hash}:${t.log_index}`)?.blockNumber).toBe(t.block_number);
  }
  const replaced = window.filter((t: any) => t.block_number >= reorged.from && t.block_number <= reorged.to);
  expect(replaced.length).toBeGreaterThan(0);
  const reconciliation = health.reconciliation.last_24h;
  expect(reconciliation.unmatched).toBe(0);

  // 4. Stopped: the tables hold each event once, nothing of the orphaned blocks, and exact candles.
  //    A stop does not wait for the sink to drain (the log keeps what it has not consumed), so the
  //    service starts once more without the chain source and the sink finishes what the log holds up to
  //    the checkpoint's tip before the tables are read.
  for (const child of children) await child.kill('SIGTERM');
  const checkpoint = JSON.parse(fs.readFileSync(path.join(dataDir, 'ingest', 'chain-checkpoint.json'), 'utf8'));
  const tip: number = checkpoint.tip.number;
  const drainer = startChild('services/main.ts', { ...env, POLYGON_RPC_URL: '' });
  children.push(drainer);
  await drainer.waitForLog((l) => l.msg === 'tapeline is serving', 60_000);
  await waitFor(async () => chainSinkLag(await chainHealth(key)) === 0, 60_000, 'the sink drained the log', 200);
  await drainer.kill('SIGTERM');
  const [counts] = await queryChdb(
    dataDir,
    "SELECT count() AS n, uniqExact(event_id) AS ids, countIf(kind = 'block_retracted') AS retractions FROM chain_ledger",
  );
  expect(counts.n).toBe(counts.ids);
  expect(counts.retractions).toBeGreaterThan(0);
  const hashes = await queryChdb(
    dataDir,
    `SELECT DISTINCT block_number, block_hash FROM chain_ledger WHERE kind != 'block_retracted' AND block_number >= ${reorged.from - 5}`,
  );
  for (const row of hashes) expect(row.block_hash).toBe(sim.chain.blockHash(Number(row.block_number)));
  const candles = await queryChdb(
    dataDir,
    `SELECT market_id, toUnixTimestamp(bucket) AS bucket, toString(sum(trade_count)) AS n, toString(sum(volume_usdc_micro)) AS usdc
       FROM chain_candles_5m GROUP BY market_id, bucket ORDER BY market_id, bucket`,
  );
  const expected = new Map<string, { n: number; usdc: bigint }>();
  for (const t of sim.state.trades) {
    const block = sim.chain.blockOfSecond(t.timestamp);
    if (block < start || block > tip) continue;
    const key = `${sim.state.world.markets[t.marketIndex]!.conditionId}|${Math.floor(t.timestamp / 300) * 300}`;
    const entry = expected.get(key) ?? { n: 0, usdc: 0n };
    entry.n++;
    entry.usdc += BigInt(micro(t.size * t.price));
    expected.set(key, entry);
  }
  expect(Object.fromEntries(candles.map((c) => [`${c.market_id}|${c.bucket}`, `${c.n}|${c.usdc}`]))).toEqual(
    Object.fromEntries([...expected].map(([k, v]) => [k, `${v.n}|${v.usdc}`])),
  );
}, 480_000);
