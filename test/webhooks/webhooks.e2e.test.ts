/**
 * The whole stack in one process against the upstream simulator, with a subscription to a local
 * receiver: simulated time moves (advance) so trades happen, YES prices move and markets resolve,
 * and the receiver gets trade.executed, market.price_signal and market.resolved deliveries whose
 * signatures check out under the signing rule, computed here by hand (not with the project's helper).
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
import { startReceiver, type ReceivedRequest, type Receiver } from './receiver.js';

let simulator: RunningSimulator | undefined;
let stack: RunningStack | undefined;
let receiver: Receiver | undefined;

afterAll(async () => {
  await stack?.stop();
  await simulator?.close();
  await receiver?.close();
});

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The signing rule, literally: expected = 'sha256=' + hex(HMAC-SHA256(secret, timestamp + '.' + raw body)). */
function specSignatureValid(request: ReceivedRequest, secret: string): boolean {
  const timestamp = String(request.headers['x-service-timestamp']);
  const expected = Buffer.from(`sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`);
  const received = Buffer.from(String(request.headers['x-service-signature']));
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
  return fresh && received.length === expected.length && crypto.timingSafeEqual(received, expected);
}

test('stack + simulator + subscription -> signed trade.executed, market.price_signal and market.resolved', async () => {
  let now = Date.now();
  simulator = await startSimulator({
    port: 0,
    seed: 11,
    marketCount: 40,
    walletCount: 30,
    historicTrades: 500,
    historyHours: 6,
    tradesPerSecond: 0.5,
    clock: () => now,
  });
  receiver = await startReceiver();
  receiver.script('/hook', { status: 200 });
  const config = loadConfig({
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-webhooks-e2e-')),
    PORT: '0',
    ...simulatorUpstreamEnv(simulator),
    MARKETS_POLL_INTERVAL_MS: '300',
    TRADES_POLL_INTERVAL_MS: '200',
    TRADES_BACKFILL_MARKETS: '0',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_POLL_INTERVAL_MS: '100',
    WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100',
    SIGNALS_PRICE_CHANGE_PCT: '2',
    SIGNALS_PRICE_WINDOW_MS: '3600000',
    LOG_LEVEL: 'silent',
  });
  stack = await startStack(config, pino({ level: 'silent' }));
  const base = `${stack.url}/v1`;
  const key = (await postJson(`${base}/agents/register`, { name: 'webhooks-e2e' })).body.data.api_key as string;
  const created = await postJson(
    `${base}/webhooks`,
    { url: `${receiver.url}/hook`, events: ['trade.executed', 'market.price_signal', 'market.resolved'] },
    { apiKey: key },
  );
  expect(created.status).toBe(201);
  const secret = created.body.data.secret as string;

  // Let the markets reach the signals processor as active first, then move simulated time in steps.
  await waitFor(async () => (await getJson(`${base}/markets?status=active&limit=1`, key)).body.data.length > 0, 30_000, 'active markets');
  const seen = () => new Set(receiver!.at('/hook').map((r) => r.headers['x-service-event']));
  await waitFor(
    async () => {
      const types = seen();
      if (types.has('trade.executed') && types.has('market.price_signal') && types.has('market.resolved')) return true;
      now += 60_000;
      simulator!.advance(0);
      return false;
    },
    90_000,
    'all three event types at the receiver',
    400,
  );

  const requests = receiver.at('/hook');
  for (const request of requests) {
    expect(specSignatureValid(request, secret)).toBe(true);
    const body = JSON.parse(request.body);
    expect(body.event).toBe(request.headers['x-service-event']);
    expect(body.delivery_id).toBe(request.headers['x-service-delivery']);
    expect(body.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(body.source).toBe('simulator');
    expect(body.timestamp).toMatch(ISO_MS);
  }
  const byType = (type: string) => requests.map((r) => JSON.parse(r.body)).filter((b) => b.event === type);
  const trade = byType('trade.executed')[0];
  expect(Object.keys(trade).sort()).toEqual(
    [
      'delivery_id',
      'event',
      'id',
      'market_id',
      'market_title',
      'outcome',
      'price',
      'side',
      'size_usdc',
      'source',
      'timestamp',
      'trade_id',
      'wallet',
    ].sort(),
  );
  expect(['buy', 'sell']).toContain(trade.side);
  const signal = byType('market.price_signal')[0];
  expect(Math.abs(signal.change_pct)).toBeGreaterThan(2);
  expect(signal.direction).toBe(signal.yes_price > signal.prev_price ? 'up' : 'down');
  const resolved = byType('market.resolved')[0];
  expect(resolved.final_yes_price + resolved.final_no_price).toBeCloseTo(1, 6);
  expect([0, 1]).toContain(resolved.final_yes_price);
  expect(typeof resolved.resolved_outcome).toBe('string');
  // The resolution also reaches the market read model (through the sink, which may trail the webhook,
  // by tens of seconds on a loaded CI machine). A timeout names what the market said last.
  await waitFor(
    async () => {
      const market = (await getJson(`${base}/markets/${resolved.market_id}`, key)).body.data;
      if (market.status === 'resolved') return true;
      throw new Error(`status ${market.status}, lifecycle ${JSON.stringify(market.lifecycle?.transitions ?? null)}`);
    },
    60_000,
    'the resolved market in /markets',
  );

  // Every delivery is in the subscriber's log as succeeded.
  const log = await getJson(`${base}/webhooks/${created.body.data.id}/deliveries?limit=500`, key);
  expect(log.body.data.length).toBeGreaterThan(0);
  const delivered = new Set(receiver.at('/hook').map((r) => r.headers['x-service-delivery']));
  for (const entry of log.body.data.filter((d: any) => d.status === 'succeeded')) expect(delivered.has(entry.id)).toBe(true);
}, 150_000);
