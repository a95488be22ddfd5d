/**
 * The whole stack against the simulator, with a webhook subscription to a local receiver:
 * - a market past its end date (29 days ago) that is still open and resolves 30 days after that end
 *   date, long after any "closed in the last week" listing would look for it;
 * - a market that resolves 50-50 (a void);
 * - every other market the simulator settles meanwhile, and a catalog of markets settled years ago.
 * Each settlement that happens while the service watches reaches the receiver exactly once, signed
 * (checked here by hand from the signing rule); history reaches it never. The API shows each
 * market's lifecycle, and the catalog holds the old markets too.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../services/config.js';
import { simulatorUpstreamEnv, startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { startStack, type RunningStack } from '../../services/stack.js';
import { getJson, postJson, waitFor } from '../support/http.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../webhooks/receiver.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
let simulator: RunningSimulator | undefined;
let stack: RunningStack | undefined;
let receiver: Receiver | undefined;

afterAll(async () => {
  await stack?.stop();
  await simulator?.close();
  await receiver?.close();
});

/** The signing rule, literally: 'sha256=' + hex(HMAC-SHA256(secret, timestamp + '.' + raw body)), within 300 s. */
function signedBy(request: ReceivedRequest, secret: string): boolean {
  const timestamp = String(request.headers['x-service-timestamp']);
  const expected = Buffer.from(`sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`);
  const received = Buffer.from(String(request.headers['x-service-signature']));
  return (
    Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300 &&
    received.length === expected.length &&
    crypto.timingSafeEqual(received, expected)
  );
}

test('late resolutions and voids reach the subscriber once each, signed; history never does', async () => {
  const start = Date.now();
  let now = start;
  simulator = await startSimulator({
    port: 0,
    seed: 21,
    marketCount: 40,
    walletCount: 30,
    historicTrades: 600,
    historyHours: 6,
    tradesPerSecond: 0.05,
    historicalMarkets: 30,
    clock: () => now,
    scenarios: { lateResolutions: 1, lateResolutionInMs: 2 * HOUR, voids: 1, voidInMs: HOUR },
  });
  const state = simulator.state;
  const late = state.world.markets[state.scenarioMarkets.lateResolution[0]!]!;
  const voided = state.world.markets[state.scenarioMarkets.voided[0]!]!;
  expect(late.closesAtMs! - late.endDateMs).toBe(30 * DAY);
  expect(late.endDateMs).toBeLessThan(start - 7 * DAY);

  receiver = await startReceiver();
  receiver.script('/hook', { status: 200 });
  const config = loadConfig({
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-resolutions-')),
    PORT: '0',
    ...simulatorUpstreamEnv(simulator),
    MARKETS_POLL_INTERVAL_MS: '300',
    TRADES_POLL_INTERVAL_MS: '500',
    CATALOG_SYNC_INTERVAL_MS: '1000',
    TRADES_BACKFILL_MARKETS: '0',
    WS_ENABLED: 'false',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_POLL_INTERVAL_MS: '100',
    WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100',
    LOG_LEVEL: 'silent',
  });
  stack = await startStack(config, pino({ level: 'silent' }));
  const base = `${stack.url}/v1`;
  const key = (await postJson(`${base}/agents/register`, { name: 'resolutions' })).body.data.api_key as string;
  const created = await postJson(`${base}/webhooks`, { url: `${receiver.url}/hook`, events: ['market.resolved'] }, { apiKey: key });
  expect(created.status).toBe(201);
  const secret = created.body.data.secret as string;

  // The catalog, history included, and both scenario markets seen open.
  const total = state.world.markets.length;
  await waitFor(async () => (await getJson(`${base}/health`, key)).body.data.counts.markets === total, 60_000, 'the whole catalog indexed');
  for (const market of [late, voided]) {
    await waitFor(
      async () => (await getJson(`${base}/markets/${market.conditionId}`, key)).body.data?.lifecycle?.state === 'active',
      30_000,
      'scenario markets in the lifecycle as active',
    );
  }

  // Three hours pass upstream: the void at +1 h, the late resolution at +2 h, others on their schedule.
  const settledBefore = new Set(state.world.markets.filter((m) => state.status[m.index]?.resolved).map((m) => m.conditionId));
  for (let step = 0; step < 6; step++) {
    now += 30 * 60_000;
    simulator.advance(0);
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  const settledNow = state.world.markets.filter((m) => state.status[m.index]?.resolved && !settledBefore.has(m.conditionId));
  const expected = new Set(settledNow.map((m) => m.conditionId));
  expect(expected.has(late.conditionId)).toBe(true);
  expect(expected.has(voided.conditionId)).toBe(true);

  const delivered = () => receiver!.at('/hook').map((r) => JSON.parse(r.body));
  await waitFor(async () => new Set(delivered().map((b) => b.market_id)).size >= expected.size, 60_000, 'a delivery per settlement', 300);
  // A few more polls and lifecycle batches: nothing is delivered twice.
  await new Promise((resolve) => setTimeout(resolve, 2_000));

  const requests = receiver.at('/hook');
  expect(requests.every((r) => signedBy(r, secret))).toBe(true);
  const bodies = delivered();
  expect(new Set(bodies.map((b) => b.market_id))).toEqual(expected);
  expect(bodies.length).toBe(expected.size);

  const lateBody = bodies.find((b) => b.market_id === late.conditionId);
  const winner = late.outcomes[late.winningOutcome]!;
  expect(lateBody).toMatchObject({
    event: 'market.resolved',
    status: 'resolved',
    resolved_outcome: winner.toLowerCase() === 'yes' || winner.toLowerCase() === 'no' ? winner.toUpperCase() : winner,
    final_yes_price: late.winningOutcome === 0 ? 1 : 0,
    final_no_price: late.winningOutcome === 0 ? 0 : 1,
    timestamp: new Date(late.closesAtMs!).toISOString(),
    source: 'simulator',
  });
  expect(bodies.find((b) => b.market_id === voided.conditionId)).toMatchObject({
    status: 'voided',
    resolved_outcome: '50-50',
    final_yes_price: 0.5,
    final_no_price: 0.5,
    payouts: [0.5, 0.5],
  });

  // The API: the late market resolved through the lifecycle (listed active, then resolved), the void voided.
  await waitFor(
    async () => (await getJson(`${base}/markets/${late.conditionId}`, key)).body.data.status === 'resolved',
    30_000,
    'the late market resolved in the API',
  );
  const lateDetail = (await getJson(`${base}/markets/${late.conditionId}`, key)).body.data;
  expect(lateDetail.lifecycle.transitions.map((t: { kind: string }) => t.kind)).toEqual(['listed', 'resolved']);
  expect(lateDetail.lifecycle.resolution).toMatchObject({ resolution_number: 1, resolved_at: new Date(late.closesAtMs!).toISOString() });
  // The webhook can go out (signals consumer) before the sink has written the void's catalog row.
  await waitFor(
    async () => (await getJson(`${base}/markets/${voided.conditionId}`, key)).body.data.resolved_outcome === '50-50',
    30_000,
    'the void in the API',
  );
  const voidDetail = (await getJson(`${base}/markets/${voided.conditionId}`, key)).body.data;
  expect(voidDetail).toMatchObject({ status: 'voided', resolved_outcome: '50-50' });
  expect((await getJson(`${base}/markets?status=voided&limit=100`, key)).body.data.map((m: { id: string }) => m.id)).toContain(
    voided.conditionId,
  );

  // A market settled years ago is in the catalog, settled, and was never delivered.
  const old = state.world.markets.find((m) => m.endDateMs < Date.UTC(2025, 0, 1))!;
  const oldDetail = (await getJson(`${base}/markets/${old.conditionId}`, key)).body.data;
  expect(['resolved', 'voided']).toContain(oldDetail.status);
  expect(bodies.some((b) => b.market_id === old.conditionId)).toBe(false);
}, 240_000);
