/**
 * Copy trading end to end against the upstream simulator: the whole stack in one process (chain
 * source over the simulator's JSON-RPC, Data API trades, sink, copy engine, webhook dispatcher), a
 * Tier 2 account that follows the simulator's busiest wallet twice - a dry run without limits and one
 * whose daily notional cannot fit a single copy - and a local receiver. The leader's fills in the
 * simulator must come back as a signed copy.executed (status dry_run) and a signed risk.blocked
 * (max_daily_notional), whose bodies carry exactly the spec's payload fields (plus the envelope's
 * event, id, delivery_id and source). Signatures are checked by the spec's rule, computed here.
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
import { runAdminCli } from '../support/processes.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../webhooks/receiver.js';

let simulator: RunningSimulator | undefined;
let stack: RunningStack | undefined;
let receiver: Receiver | undefined;

afterAll(async () => {
  await stack?.stop();
  await simulator?.close();
  await receiver?.close();
});

// The spec's event tables (service spec, Events: payload shapes), plus the envelope every delivery carries.
const ENVELOPE = ['event', 'id', 'delivery_id', 'source'];
const SPEC_FIELDS: Record<string, Record<string, 'integer' | 'string' | 'number' | 'boolean'>> = {
  'copy.executed': {
    user_id: 'integer',
    copy_subscription_id: 'integer',
    leader_wallet: 'string',
    leader_trade_id: 'string',
    market_id: 'string',
    side: 'string',
    outcome: 'string',
    child_size_usdc: 'number',
    leader_size_usdc: 'number',
    clob_order_id: 'string',
    trade_intent_id: 'integer',
    status: 'string',
    dry_run: 'boolean',
    timestamp: 'string',
  },
  'risk.blocked': {
    user_id: 'integer',
    copy_subscription_id: 'integer',
    leader_wallet: 'string',
    market_id: 'string',
    reason: 'string',
    leader_size_usdc: 'number',
    trade_intent_id: 'integer',
    timestamp: 'string',
  },
};

function specSignatureValid(request: ReceivedRequest, secret: string): boolean {
  const timestamp = String(request.headers['x-service-timestamp']);
  const expected = Buffer.from(`sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`);
  const received = Buffer.from(String(request.headers['x-service-signature']));
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
  return fresh && received.length === expected.length && crypto.timingSafeEqual(received, expected);
}

/** JSON types as the spec names them: an integer is a number too. */
function hasType(value: unknown, type: string): boolean {
  return type === 'integer' ? Number.isInteger(value) : typeof value === type;
}

test('a leader fill in the simulator -> signed copy.executed (dry run) and risk.blocked (limit hit) at a local receiver', async () => {
  let now = Date.now();
  simulator = await startSimulator({
    port: 0,
    seed: 14,
    marketCount: 12,
    walletCount: 4,
    historicTrades: 200,
    historyHours: 2,
    tradesPerSecond: 1,
    clock: () => now,
  });
  receiver = await startReceiver();
  receiver.script('/copy', { status: 204 });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-copy-e2e-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    ...simulatorUpstreamEnv(simulator),
    MARKETS_POLL_INTERVAL_MS: '500',
    TRADES_POLL_INTERVAL_MS: '300',
    TRADES_BACKFILL_MARKETS: '0',
    CHAIN_CONFIRMATIONS: '1',
    CHAIN_POLL_INTERVAL_MS: '200',
    CHAIN_RPC_BUDGET_PER_10S: '100000',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_POLL_INTERVAL_MS: '100',
    LOG_LEVEL: 'silent',
  });
  stack = await startStack(config, pino({ level: 'silent' }));
  const base = `${stack.url}/v1`;
  const key = (await runAdminCli(dataDir, ['keys', 'create', '--tier', '2', '--name', 'copy-e2e'])).api_key as string;

  // The busiest wallet of the simulated tape is the leader.
  const trades = await waitFor(
    async () => {
      const page = (await getJson(`${base}/trades?limit=200&role=all`, key)).body.data as Array<{ wallet: string }>;
      return page.length >= 20 ? page : null;
    },
    60_000,
    'trades in the feed',
  );
  const counts = new Map<string, number>();
  for (const t of trades) counts.set(t.wallet, (counts.get(t.wallet) ?? 0) + 1);
  const leader = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];

  const hook = await postJson(
    `${base}/webhooks`,
    { url: `${receiver.url}/copy`, events: ['copy.executed', 'risk.blocked'] },
    { apiKey: key },
  );
  expect(hook.status).toBe(201);
  const secret = hook.body.data.secret as string;
  const dry = await postJson(`${base}/copy/subscriptions`, { leader_wallet: leader, sizing: { rule: 'fixed', usdc: 5 } }, { apiKey: key });
  expect(dry.status).toBe(201);
  const limited = await postJson(
    `${base}/copy/subscriptions`,
    {
      leader_wallet: leader,
      sizing: { rule: 'fixed', usdc: 5 },
      limits: { max_daily_notional_usdc: 2, min_order_usdc: 1 },
      dry_run: false,
    },
    { apiKey: key },
  );
  expect(limited.status).toBe(201);

  const bodies = () => receiver!.at('/copy').map((r) => JSON.parse(r.body));
  await waitFor(
    async () => {
      const received = bodies();
      const executed = received.some((b) => b.event === 'copy.executed' && b.status === 'dry_run');
      const blocked = received.some((b) => b.event === 'risk.blocked' && b.reason === 'max_daily_notional');
      if (executed && blocked) return true;
      now += 20_000;
      simulator!.advance(0);
      return false;
    },
    120_000,
    'copy.executed and risk.blocked at the receiver',
    500,
  );

  for (const request of receiver.at('/copy')) {
    expect(specSignatureValid(request, secret)).toBe(true);
    const body = JSON.parse(request.body);
    expect(body.event).toBe(request.headers['x-service-event']);
    expect(body.delivery_id).toBe(request.headers['x-service-delivery']);
    const fields = SPEC_FIELDS[body.event]!;
    expect(Object.keys(body).sort()).toEqual([...ENVELOPE, ...Object.keys(fields)].sort());
    for (const [name, type] of Object.entries(fields)) expect([name, hasType(body[name], type)]).toEqual([name, true]);
    expect(body.leader_wallet).toBe(leader);
    expect(body.source).toBe('simulator');
    expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  }
  // One account made both subscriptions: one user_id on every delivery.
  expect(new Set(bodies().map((b) => b.user_id)).size).toBe(1);
  const executed = bodies().filter((b) => b.event === 'copy.executed');
  for (const body of executed) {
    expect(body).toMatchObject({ copy_subscription_id: dry.body.data.id, status: 'dry_run', dry_run: true, clob_order_id: '' });
    expect(['buy', 'sell']).toContain(body.side);
  }
  const firstBuy = executed.find((b) => b.side === 'buy');
  if (firstBuy) expect(firstBuy.child_size_usdc).toBe(5);
  const blocked = bodies().filter((b) => b.event === 'risk.blocked');
  // The limited subscription's buys hit its daily limit; either subscription may see a leader sell with
  // nothing copied to sell (no_position), or one clipped to what it holds x the sell price and so under
  // the default 1 USDC minimum (below_min_order: after the price fell, or after an earlier copied sell
  // left a remainder) - the dry run's buys (a fixed 5 USDC) can hit no limit.
  for (const body of blocked.filter((b) => b.reason === 'max_daily_notional')) expect(body.copy_subscription_id).toBe(limited.body.data.id);
  for (const body of blocked.filter((b) => b.copy_subscription_id === dry.body.data.id))
    expect(['no_position', 'stale_fill', 'below_min_order']).toContain(body.reason);
  expect(blocked.some((b) => b.reason === 'max_daily_notional')).toBe(true);

  // Each delivery is one intent of the account, listed with the same id and status.
  const intents = (await getJson(`${base}/copy/intents?limit=500`, key)).body.data as Array<{ trade_intent_id: number; status: string }>;
  const statusOf = new Map(intents.map((i) => [i.trade_intent_id, i.status]));
  for (const body of executed) expect(statusOf.get(body.trade_intent_id)).toBe('dry_run');
  for (const body of blocked) expect(statusOf.get(body.trade_intent_id)).toBe('blocked');
}, 200_000);
