/**
 * A live stream across a restart of the service (SIGTERM, then started again on the same DATA_DIR):
 * an SSE subscriber to the trades channel from the start of the log, cut by the shutdown while the
 * simulator's live trades keep arriving, resumes with its last cursor; once the feed stops (the
 * simulator is stopped) the messages before and after, together, are exactly the records
 * GET /v1/trades serves (the `data_api` records, no chain source here): no gap, no duplicate, the same
 * objects. A signals subscriber resumed the same way holds exactly the signals a reader of the whole
 * log gets afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeCursor, encodeCursor } from '../../services/streams/cursor.js';
import { getJson, waitFor, walkPages } from '../support/http.js';
import { freePort, runAdminCli, startChild, type Child, simulatorUpstreams } from '../support/processes.js';
import { openSse, type SseClient } from '../support/stream-clients.js';

const children: Child[] = [];
let dataDir: string | undefined;
afterAll(async () => {
  for (const child of children) await child.kill('SIGKILL');
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function startService(dataDir: string, port: number, simulatorBase: string) {
  const service = startChild('services/main.ts', {
    DATA_DIR: dataDir,
    PORT: String(port),
    ...simulatorUpstreams(simulatorBase),
    TRADES_POLL_INTERVAL_MS: '250',
    MARKETS_POLL_INTERVAL_MS: '2000',
    STREAM_HEARTBEAT_MS: '500',
    STREAM_POLL_MS: '50',
  });
  children.push(service);
  await service.waitForLog((l) => l.msg === 'tapeline is serving', 60_000);
  return service;
}

const lastCursor = (client: SseClient): string => client.messages.filter((m) => typeof m.cursor === 'string').at(-1)!.cursor;
const trades = (client: SseClient) => client.messages.filter((m) => m.type === 'trade').map((m) => m.data);
const signalIds = (client: SseClient) => client.messages.filter((m) => m.type === 'signal').map((m) => m.data.id as string);

test('SSE across a SIGTERM and restart on the same data: before + after = exactly what /v1/trades serves', async () => {
  const simulator = startChild('simulator/main.ts', {
    SIM_PORT: '0',
    SIM_SEED: '33',
    SIM_MARKET_COUNT: '30',
    SIM_HISTORIC_TRADES: '300',
    SIM_TRADES_PER_SECOND: '20',
  });
  children.push(simulator);
  const simulatorBase = String((await simulator.waitForLog((l) => typeof l.baseUrl === 'string', 30_000)).baseUrl);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-stream-restart-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;

  const first = await startService(dataDir, port, simulatorBase);
  const key = (await runAdminCli(dataDir, ['keys', 'create', '--tier', '2', '--name', 'stream-e2e'])).api_key as string;
  // The subscription starts at the log's beginning: the cursor of its first records (every partition
  // at offset 0), built from the shape of a cursor the service wrote, so the range is the whole log.
  const probe = await openSse(base, 'channel=trades', key);
  expect(probe.status).toBe(200);
  await waitFor(async () => (probe.messages[0]?.type === 'subscribed' ? true : null), 10_000, 'subscribed');
  probe.close();
  const positions = decodeCursor(probe.messages[0].cursor)!;
  const fromStart = encodeCursor(new Map([...positions].map(([topic, offsets]) => [topic, offsets.map(() => 0)])));

  const before = await openSse(base, `channel=trades&cursor=${fromStart}`, key);
  expect(before.status).toBe(200);
  // A signals subscriber alongside, from the start of its two streams (trades and signals).
  const signalsProbe = await openSse(base, 'channel=signals', key);
  await waitFor(async () => (signalsProbe.messages[0]?.type === 'subscribed' ? true : null), 10_000, 'subscribed to signals');
  signalsProbe.close();
  const signalsFromStart = encodeCursor(
    new Map([...decodeCursor(signalsProbe.messages[0].cursor)!].map(([topic, offsets]) => [topic, offsets.map(() => 0)])),
  );
  const signalsBefore = await openSse(base, `channel=signals&cursor=${signalsFromStart}`, key);
  expect(signalsBefore.status).toBe(200);
  // Past the history, into the live trades: the shutdown cuts a stream that is still receiving.
  await waitFor(async () => (trades(before).length >= 400 ? true : null), 60_000, '400 streamed trades before the restart');
  await waitFor(async () => (signalIds(signalsBefore).length >= 5 ? true : null), 60_000, 'five streamed signals before the restart');
  await first.kill('SIGTERM');
  await before.ended;
  await signalsBefore.ended;
  const streamedBefore = trades(before);

  await startService(dataDir, port, simulatorBase);
  const after = await openSse(base, `channel=trades&cursor=${lastCursor(before)}`, key);
  expect(after.status).toBe(200);
  const signalsAfter = await openSse(base, `channel=signals&cursor=${lastCursor(signalsBefore)}`, key);
  expect(signalsAfter.status).toBe(200);
  // Trades made while the service was down and after it came back reach the stream; then the feed stops.
  await waitFor(async () => (trades(after).length >= 50 ? true : null), 30_000, 'trades streamed after the restart');
  await simulator.kill('SIGKILL');
  let previous = -1;
  await waitFor(
    async () => {
      const { body } = await getJson(`${base}/v1/health`, key);
      const lag = Object.values(body.data.pipeline.sink_lag as Record<string, number>).reduce((a, b) => a + b, 0);
      const count = body.data.counts.trades as number;
      const settled = lag === 0 && count === previous && streamedBefore.length + trades(after).length >= count;
      previous = count;
      return settled ? true : null;
    },
    30_000,
    'the served and streamed trades to settle once the feed stopped',
    500,
  );
  // Heartbeats come after the log's end is reached: wait for one, then nothing more is due.
  const seen = after.messages.length;
  await waitFor(async () => (after.messages.slice(seen).some((m) => m.type === 'heartbeat') ? true : null), 10_000, 'a heartbeat');
  after.close();

  // The signals subscriber across the restart got exactly what one reading the whole log now gets.
  await waitFor(
    async () => {
      const seenSignals = signalIds(signalsAfter).length;
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return signalIds(signalsAfter).length === seenSignals ? true : null;
    },
    30_000,
    'the signals stream to go quiet',
  );
  const whole = await openSse(base, `channel=signals&cursor=${signalsFromStart}`, key);
  await waitFor(async () => (whole.messages.some((m) => m.type === 'heartbeat') ? true : null), 30_000, 'the whole signals log read');
  whole.close();
  signalsAfter.close();
  const resumedIds = [...signalIds(signalsBefore), ...signalIds(signalsAfter)];
  expect(signalIds(signalsAfter).length).toBeGreaterThan(0);
  expect(signalIds(signalsBefore).length).toBeGreaterThanOrEqual(5);
  expect(new Set(resumedIds).size).toBe(resumedIds.length);
  expect([...resumedIds].sort()).toEqual([...signalIds(whole)].sort());

  const streamed = [...streamedBefore, ...trades(after)];
  const served = (await walkPages(`${base}/v1/trades?limit=500`, key)).items;
  const ids = streamed.map((t) => t.trade_id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(trades(after).length).toBeGreaterThan(0);
  expect(ids.length).toBe(served.length);
  const byId = (a: { trade_id: string }, b: { trade_id: string }) => (a.trade_id < b.trade_id ? -1 : a.trade_id > b.trade_id ? 1 : 0);
  expect([...streamed].sort(byId)).toEqual([...served].sort(byId));
}, 120_000);
