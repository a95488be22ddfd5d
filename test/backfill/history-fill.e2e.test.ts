/**
 * The history fill as a person gets it: `services/main.ts` against the simulator, whose chain already
 * has history when the service starts (its contracts said to start 12,000 blocks back), with no
 * setting about history. The service
 * follows the head and fills the past in the background; killed with SIGKILL part-way and restarted,
 * it resumes without reading a finished range again (the eth_getLogs ranges are counted by a proxy in
 * front of the simulator's RPC); done, its coverage is complete and its position ledger equals, row for
 * row, that of a service that read the same chain from the history start (CHAIN_START_BLOCK there,
 * history fill off).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type RunningSimulator, simulatorUpstreamEnv, startSimulator } from '../../simulator/server.js';
import { getJson, waitFor } from '../support/http.js';
import { type Child, freePort, REPO_ROOT, runAdminCli, startChild } from '../support/processes.js';

const children: Child[] = [];
let sim: RunningSimulator;
let proxy: http.Server | undefined;
afterAll(async () => {
  for (const child of children) await child.kill('SIGKILL');
  proxy?.close();
  await sim?.close();
});

function queryChdb(dataDir: string, sql: string): Promise<any[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'test/support/chdb-query.ts', dataDir, sql],
      { cwd: REPO_ROOT, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    );
  });
}

/** How long the proxy holds a request with eth_getLogs calls before forwarding it. */
const getLogsDelay = { ms: 0 };

/** A JSON-RPC proxy to the simulator that records every eth_getLogs range [from, to]. */
async function countingRpc(target: string, ranges: Array<[number, number]>): Promise<string> {
  proxy = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString();
      const parsed = JSON.parse(body) as unknown;
      let getLogs = false;
      for (const call of (Array.isArray(parsed) ? parsed : [parsed]) as Array<{ method?: string; params?: any[] }>) {
        const filter = call.method === 'eth_getLogs' ? call.params?.[0] : undefined;
        if (filter?.fromBlock && filter?.toBlock) ranges.push([Number.parseInt(filter.fromBlock, 16), Number.parseInt(filter.toBlock, 16)]);
        getLogs ||= call.method === 'eth_getLogs';
      }
      if (getLogs && getLogsDelay.ms > 0) await new Promise((resolve) => setTimeout(resolve, getLogsDelay.ms));
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(await answer.text());
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => proxy!.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${port}/rpc`;
}

// The standing rows of the position ledger (a rewound row and its cancellation drop out), per wallet and token in chain order.
const LIVE_ROWS = `
  SELECT wallet, asset_id, event_id, block_hash, origin, kind, action, toString(in_qty) AS in_qty, toString(in_usdc) AS in_usdc,
         toString(qty_delta) AS qty_delta, toString(cash) AS cash, toString(realized) AS realized, toString(volume) AS volume, trades,
         toString(qty_after) AS qty_after, toString(cost_after) AS cost_after
    FROM position_ledger
   WHERE sign = 1 AND (wallet, asset_id, rev) NOT IN (SELECT wallet, asset_id, of_rev FROM position_ledger WHERE sign = -1)
   ORDER BY wallet, asset_id, time, block_number, log_index, event_id`;
// The figures served from it: lifetime, per position, per market.
const VIEWS = [
  `SELECT wallet, toString(sum(realized)) AS r, toString(sum(volume)) AS v, toString(sum(trades)) AS t, toString(sum(bought_usdc)) AS b
     FROM trader_lifetime GROUP BY wallet ORDER BY wallet`,
  `SELECT wallet, asset_id, toString(argMaxMerge(state).1) AS q, toString(argMaxMerge(state).2) AS c, toString(sum(realized)) AS r,
          toString(sum(cost_in)) AS ci FROM position_state GROUP BY wallet, asset_id ORDER BY wallet, asset_id`,
  `SELECT wallet, market_id, toString(sum(realized)) AS r, toString(sum(cost_in)) AS c FROM trader_market_pnl GROUP BY wallet, market_id ORDER BY wallet, market_id`,
];

test('fills the history in the background by default, resumes after kill -9 without re-reading, and ends equal to a read from its start', async () => {
  // No trades after the start: both services see the same chain content, whenever they read it.
  sim = await startSimulator({
    seed: 13,
    marketCount: 30,
    walletCount: 40,
    historyHours: 3,
    historicTrades: 1500,
    tradesPerSecond: 0,
    port: 0,
  });
  const ranges: Array<[number, number]> = [];
  const rpc = await countingRpc(sim.rpcUrl, ranges);
  // The simulated chain starts 30-odd hours back; its contracts are said to start 12,000 blocks (3 h
  // 20 min) before the head, so the history to fill is that, whatever the machine's speed.
  const historyStart = sim.chain.head() - 12_000;
  const common = {
    ...Object.fromEntries(
      ['EXCHANGE_V1', 'NEG_RISK_EXCHANGE_V1', 'EXCHANGE_V2', 'NEG_RISK_EXCHANGE_V2', 'CONDITIONAL_TOKENS', 'NEG_RISK_ADAPTER'].map((c) => [
        `CHAIN_START_BLOCK_${c}`,
        String(historyStart),
      ]),
    ),
    // The Data API on: its trades reach the filled service's ledger before the fill reads their blocks,
    // and each must give way to its chain twin (a twin in the same batch, and a kill between the
    // ledger's part and its views', each left both standing: docs/POSITIONS.md).
    CHAIN_CONFIRMATIONS: '1',
    CHAIN_LOG_RANGE_BLOCKS: '500',
    CHAIN_LOG_RANGE_MAX_BLOCKS: '500',
    CHAIN_RPC_BUDGET_PER_10S: '100000',
    CHAIN_RPC_BATCH_SIZE: '50',
    CHAIN_POLL_INTERVAL_MS: '300',
    TRADES_BACKFILL_MARKETS: '0',
    WS_ENABLED: 'false',
  };
  const service = async (dataDir: string, env: Record<string, string>) => {
    const port = await freePort();
    const child = startChild('services/main.ts', {
      ...simulatorUpstreamEnv(sim),
      ...common,
      DATA_DIR: dataDir,
      PORT: String(port),
      ...env,
    });
    children.push(child);
    await child.waitForLog((l) => l.msg === 'tapeline is serving', 90_000);
    return { child, base: `http://127.0.0.1:${port}` };
  };
  const health = async (base: string, key: string) => (await getJson(`${base}/v1/health`, key)).body.data;

  // 1. No history setting; smaller chunks than Polygon's day so the history makes several. Reads are
  // slowed while the test waits to kill the fill part-way: unslowed, the whole history (12,000 blocks
  // at 800-1,500 blocks/s) was read before the service said it was serving, and the part-way state
  // never came.
  getLogsDelay.ms = 500;
  const filled = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-history-'));
  const fillEnv = { POLYGON_RPC_URL: rpc, CHAIN_HISTORY_CHUNK_BLOCKS: '3000' };
  const first = await service(filled, fillEnv);
  // The key is made while the test watches the fill: at 800-1,100 blocks/s here the whole history
  // took about 12 s, and waiting for the admin CLI first once let the part-way state pass unseen.
  const keyMade = runAdminCli(filled, ['keys', 'create', '--tier', '2', '--name', 'e2e']).then(
    (made) => made.api_key as string,
    () => null,
  );
  const planFile = path.join(filled, 'ingest', 'chain-history.json');
  const plan = () => {
    try {
      return JSON.parse(fs.readFileSync(planFile, 'utf8'));
    } catch {
      return null;
    }
  };
  // Killed once a chunk has joined the coverage and two ranges of the next are read (a resume that
  // re-read finished ranges would read both again; a kill -9 repeats at most the one in flight).
  // A timeout names the plan as it stood and the service's last lines.
  await waitFor(
    async () => {
      const p = plan();
      if (p && p.covered_from <= p.top_block + 1 - 3000 && p.chunk && p.chunk.next_block >= p.chunk.from_block + 1000) return true;
      throw new Error(`plan ${JSON.stringify(p)}; service output:\n${first.child.output().slice(-2000)}`);
    },
    120_000,
    'the history fill one chunk and part of another in',
    20,
  );
  await first.child.kill('SIGKILL');
  getLogsDelay.ms = 0;
  // Made through the service's operator port; a kill that cut that request short leaves the store to the CLI.
  const key = (await keyMade) ?? ((await runAdminCli(filled, ['keys', 'create', '--tier', '2', '--name', 'e2e'])).api_key as string);
  const top = plan().top_block as number;
  expect(plan().history_start_block).toBe(historyStart);
  const beforeRestart = ranges.filter(([, to]) => to <= top);
  ranges.length = 0;

  // 2. Restarted: the fill resumes and completes; the coverage becomes complete.
  const second = await service(filled, fillEnv);
  const done = await waitFor(
    async () => {
      const h = await health(second.base, key);
      return h.coverage.history.state === 'done' && h.coverage.complete ? h : null;
    },
    180_000,
    'the history fill done and the coverage complete',
    250,
  );
  expect(done.coverage.from_block).toBe(historyStart);
  expect(done.coverage.history).toMatchObject({
    from_block: historyStart,
    to_block: top,
    blocks_to_do: 0,
    blocks_done: top - historyStart + 1,
  });
  expect(done.coverage.history.blocks_per_second).toBeGreaterThan(0);
  expect(second.child.output()).toMatch(/chain history: complete, blocks \d+\.\.\d+/);
  const afterRestart = ranges.filter(([, to]) => to <= top);
  // A kill -9 repeats at most the range in flight; no finished range is read again.
  const key2 = ([from, to]: [number, number]) => `${from}-${to}`;
  const readBefore = new Set(beforeRestart.map(key2));
  const reread = [...new Set(afterRestart.map(key2))].filter((r) => readBefore.has(r));
  expect(reread.length).toBeLessThanOrEqual(1);
  console.log(
    `history fill: ${top - historyStart + 1} blocks at ${done.coverage.history.blocks_per_second} blocks/s (restarted run); ` +
      `eth_getLogs ranges of the history: ${beforeRestart.length} before the kill, ${afterRestart.length} after, ${reread.length} read again`,
  );
  // Every history block was read, and all but that one range once.
  const blocks = new Set(
    [...beforeRestart, ...afterRestart].flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => from + i)),
  );
  for (let b = historyStart; b <= top; b++) if (!blocks.has(b)) throw new Error(`history block ${b} was never read`);

  // 3. The reference: a service that reads the same chain from the history start, history fill off.
  const reference = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-history-ref-'));
  const ref = await service(reference, { CHAIN_START_BLOCK: String(historyStart), CHAIN_HISTORY: 'off' });
  const refKey = (await runAdminCli(reference, ['keys', 'create', '--tier', '2', '--name', 'e2e'])).api_key as string;
  // Both ledgers settled: complete, and the position ledger has applied everything the log holds.
  const settled = (base: string, k: string) =>
    waitFor(
      async () => {
        const h = await health(base, k);
        const lag = Object.values(h.pipeline.ledger_lag as Record<string, number>).reduce((sum, n) => sum + n, 0);
        return h.coverage.complete && lag === 0 ? h : null;
      },
      180_000,
      `${base}: coverage complete and the position ledger caught up`,
      250,
    );
  await settled(ref.base, refKey);
  await settled(second.base, key);
  await ref.child.kill('SIGTERM');
  await second.child.kill('SIGTERM');

  const [filledRows, referenceRows] = [await queryChdb(filled, LIVE_ROWS), await queryChdb(reference, LIVE_ROWS)];
  expect(referenceRows.filter((r) => r.origin === 'chain').length).toBeGreaterThan(1000);
  expect(filledRows.length).toBe(referenceRows.length);
  expect(filledRows).toEqual(referenceRows);
  // Each (wallet, token)'s rows are numbered once: a rewind numbers on from its stored rows.
  for (const dir of [filled, reference])
    expect(
      await queryChdb(dir, 'SELECT wallet, asset_id, rev FROM position_ledger GROUP BY wallet, asset_id, rev HAVING count() > 1 LIMIT 5'),
    ).toEqual([]);
  // The Data API's trades did reach the filled ledger first (and were replaced).
  const replaced = await queryChdb(filled, "SELECT count() AS n FROM position_ledger WHERE origin = 'data_api' AND sign = -1");
  expect(Number(replaced[0].n)).toBeGreaterThan(0);
  for (const view of VIEWS) expect(await queryChdb(filled, view)).toEqual(await queryChdb(reference, view));
}, 600_000);
