/**
 * `npm run backfill -- --source chain` as a person runs it, against the simulator's JSON-RPC: killed
 * with SIGKILL part-way, rerun (it resumes from its checkpoint), then rerun once finished (a fresh,
 * idempotent pass). ClickHouse then holds exactly the simulator's fills of the block range, both
 * sides, once each, and the service's follower checkpoint continues right after the range.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type RunningSimulator, simulatorUpstreamEnv, startSimulator } from '../../simulator/server.js';
import { waitFor } from '../support/http.js';
import { REPO_ROOT } from '../support/processes.js';

let sim: RunningSimulator;
afterAll(() => sim?.close());

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runBackfill(args: string[], env: Record<string, string>, killWhen?: () => boolean): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/backfill/cli.ts', ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = killWhen
      ? setInterval(() => {
          if (killWhen()) child.kill('SIGKILL');
        }, 20)
      : undefined;
    child.once('exit', (code, signal) => {
      if (timer) clearInterval(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

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

test('kill -9 mid-run, resume, rerun: every fill of the range once, both sides; the follower continues after it', async () => {
  // No live trades: the range's content is fixed while the test runs.
  sim = await startSimulator({
    seed: 9,
    marketCount: 60,
    walletCount: 60,
    historyHours: 6,
    historicTrades: 4000,
    tradesPerSecond: 0,
    port: 0,
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-chain-backfill-'));
  const to = sim.chain.head() - 100;
  const from = to - 4_000;
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_PRETTY: 'false',
    DATA_DIR: dataDir,
    ...simulatorUpstreamEnv(sim),
    CHAIN_LOG_RANGE_BLOCKS: '25',
    CHAIN_LOG_RANGE_MAX_BLOCKS: '25',
    CHAIN_RPC_BUDGET_PER_10S: '100000',
    CHAIN_RPC_BATCH_SIZE: '50',
  };
  const args = ['--source', 'chain', '--from-block', String(from), '--to-block', String(to)];
  const progressFile = path.join(dataDir, 'ingest', 'chain-backfill-checkpoint.json');
  const progress = () => {
    try {
      return JSON.parse(fs.readFileSync(progressFile, 'utf8'))?.tip?.number ?? 0;
    } catch {
      return 0;
    }
  };

  const killed = await runBackfill(args, env, () => progress() >= from + 1_000);
  expect(killed.signal).toBe('SIGKILL');
  const reached = progress();
  expect(reached).toBeGreaterThanOrEqual(from + 1_000);
  expect(reached).toBeLessThan(to);

  const resumed = await runBackfill(args, env);
  expect(resumed.stderr).toContain(`resuming blocks ${from}..${to}`);
  expect(resumed.code).toBe(0);
  expect(resumed.stderr).toMatch(/complete in .* blocks\/s .* left/);
  const summary = JSON.parse(resumed.stdout.trim().split('\n').at(-1)!);
  expect(summary).toMatchObject({ outcome: 'complete', source: 'chain', from_block: from, to_block: to, waiting_for_markets: 0 });

  // Finished: the service's follower takes over right after the range.
  const follower = JSON.parse(fs.readFileSync(path.join(dataDir, 'ingest', 'chain-checkpoint.json'), 'utf8'));
  expect([follower.first_block, follower.next_block]).toEqual([from, to + 1]);

  const again = await runBackfill(args, env);
  expect(again.code).toBe(0);

  const fromSecond = sim.chain.secondOfBlock(from);
  const toSecond = sim.chain.secondOfBlock(to);
  const { wallets } = sim.state.world;
  const expected = sim.state.trades
    .filter((t) => t.timestamp >= fromSecond && t.timestamp <= toSecond)
    .flatMap((t) => [
      `${t.transactionHash}|${wallets[t.walletIndex]!.address}|taker`,
      ...(t.makerWalletIndex >= 0 ? [`${t.transactionHash}|${wallets[t.makerWalletIndex]!.address}|maker`] : []),
    ])
    .sort();
  await waitFor(async () => fs.existsSync(path.join(dataDir, 'chdb')), 5_000, 'the indexed store');
  const rows = await queryChdb(dataDir, "SELECT tx_hash, wallet, role FROM chain_ledger WHERE kind = 'fill' ORDER BY tx_hash, wallet");
  expect(rows.map((r) => `${r.tx_hash}|${r.wallet}|${r.role}`).sort()).toEqual(expected);
  expect(expected.length).toBeGreaterThan(200);
  const markets = await queryChdb(dataDir, 'SELECT uniqExact(market_id) AS n FROM markets');
  expect(markets[0].n).toBeGreaterThan(0);
}, 300_000);
