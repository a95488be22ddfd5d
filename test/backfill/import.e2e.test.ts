/**
 * `npm run import` as docs/CHAIN.md shows it: the documented line, run by bash in the repository, on
 * cryo `logs` and `blocks` Parquet files written from the simulator's logs, with no RPC configured (the
 * blocks files give block times and hashes) and an empty store (markets are learnt from the
 * simulator's Gamma). ClickHouse then holds every fill of the files' blocks, both sides, once each; a
 * second run adds no row.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'chdb';
import { openRpcChainReader } from '../../services/chain/rpc-chain-reader.js';
import { type RunningSimulator, simulatorUpstreamEnv, startSimulator } from '../../simulator/server.js';
import { allExamples } from '../support/doc-examples.js';
import { dumpNode, writeCryoBlocks, writeCryoLogs } from '../support/log-files.js';
import { REPO_ROOT } from '../support/processes.js';

let sim: RunningSimulator;
let dir: string;
afterAll(async () => {
  await sim?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function run(command: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', command], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
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

test('the documented import of cryo files: every fill of their blocks once, both sides; a rerun adds nothing', async () => {
  const example = allExamples().find((e) => e.file === 'docs/CHAIN.md' && e.code.includes('npm run import --'));
  expect(example?.code.trim()).toBe('npm run import -- ./polygon-logs');
  sim = await startSimulator({
    seed: 9,
    marketCount: 60,
    walletCount: 60,
    historyHours: 6,
    historicTrades: 4000,
    tradesPerSecond: 0,
    port: 0,
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-import-'));
  const dataDir = path.join(dir, 'data');
  const to = sim.chain.head() - 100;
  const from = to - 4_000;
  const reader = openRpcChainReader({ url: sim.rpcUrl, requestsPer10s: 100_000, timeoutMs: 30_000, batchSize: 10 });
  const dump = await dumpNode(reader, from, to, 2_000);
  await reader.close();
  const files = path.join(dir, 'polygon-logs');
  fs.mkdirSync(files);
  const writer = new Session(path.join(dir, 'writer'));
  try {
    writeCryoLogs(writer, path.join(files, `polygon__logs__${from}_to_${to}.parquet`), dump.logs);
    writeCryoBlocks(writer, path.join(files, `polygon__blocks__${from}_to_${to}.parquet`), dump.blocks);
  } finally {
    writer.close();
  }
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_PRETTY: 'false',
    DATA_DIR: dataDir,
    ...simulatorUpstreamEnv(sim),
    POLYGON_RPC_URL: '',
  };
  const command = example!.code.replace('./polygon-logs', files);

  const first = await run(command, env);
  expect(first.stderr).toContain('block times and hashes from blocks files');
  expect(first.stderr).toMatch(/import: complete in .* files 1\/1 · .* logs\/s/);
  expect(first.code).toBe(0);
  const summary = JSON.parse(first.stdout.trim().split('\n').at(-1)!);
  expect(summary).toMatchObject({ outcome: 'complete', indexed: true, files: 1, blocks_files: 1, dead_letters: 0, decided_at_end: 0 });

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
  expect(expected.length).toBeGreaterThan(200);
  const fills = async () =>
    (await queryChdb(dataDir, "SELECT tx_hash, wallet, role FROM chain_ledger WHERE kind = 'fill'"))
      .map((r) => `${r.tx_hash}|${r.wallet}|${r.role}`)
      .sort();
  expect(await fills()).toEqual(expected);
  const [{ n: rows }] = await queryChdb(dataDir, 'SELECT count() AS n FROM chain_ledger');
  expect(Number(rows)).toBe(summary.ledger_events);

  const second = await run(command, env);
  expect(second.code).toBe(0);
  expect(await fills()).toEqual(expected);
  const [{ n: after }] = await queryChdb(dataDir, 'SELECT count() AS n FROM chain_ledger');
  expect(after).toBe(rows);
}, 300_000);
