/**
 * The abuse scenario, run as its own process (a plain Node load generator, so the test runner's
 * sandbox is not the bottleneck of the floods): starts the demo, measures a control client at idle,
 * then under 10,000 registrations, 100,000 cache-busting URLs, 1,000 concurrent slow queries,
 * 1,000 subscriptions to a hanging receiver, a burst of made-up keys from many addresses (issue 59
 * H1), 1,000 copy subscriptions to the busiest wallets (H2), a webhook backlog flood (M2), and the
 * low findings an attacker probes (crafted cursors and numbers, registrations spread over a /24,
 * paper orders reusing a book's depth), and prints one JSON report as its last stdout line.
 * test/abuse/service.abuse.test.ts runs it and holds the report to the bounds.
 *
 *   node --import tsx test/abuse/abuse-scenario.ts
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { encodeCursor, queryFingerprint } from '../../services/http/cursor.js';
import { CHANNELS } from '../../services/streams/channels.js';
import { encodeCursor as encodeStreamCursor } from '../../services/streams/cursor.js';
import { freePort, startChild, type Child } from '../support/processes.js';
import { waitFor } from '../support/http.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';

/** Concurrency of the registration flood. */
const FLOOD_CONCURRENCY = 32;
/**
 * Concurrency of the cache-busting flood: the engine serves the attackers' admitted queries at its
 * own pace, so enough connections are open that the rest meet the rate limits and per-key queue caps.
 */
const BUSTING_CONCURRENCY = 256;
const CONTROL_INTERVAL_MS = 40;
const PROBE_INTERVAL_MS = 250;
/** Samples a measured phase gathers before the next begins (the report requires more than 20). */
const MIN_PHASE_SAMPLES = 25;
const PHASE_SAMPLE_WAIT_MS = 60_000;
/** Each subscription's backlog in the demo: small, so the backlog flood reaches it within its phase. */
const BACKLOG = 20;
/** The lock-out burst: made-up keys from this many addresses (issue 59 H1 used 21), this many each. */
const LOCKOUT_ADDRESSES = 24;
/**
 * The valid keys' pace in the lock-out phase: 40 keys, one request each every second (40 a second in
 * all), each sent when due whatever the answers' latency.
 */
const VALID_INTERVAL_MS = 25;
const LOCKOUT_KEYS_PER_ADDRESS = 40;
/** The subscription flood: Tier 2 accounts, each trying a few more copy subscriptions than its cap of 25. */
const FLOOD_ACCOUNTS = 40;
const COPY_TRIES_PER_ACCOUNT = 30;
/** Test events one account sends to one subscription in the backlog flood. */
const BACKLOG_TEST_EVENTS = 200;
/**
 * The low findings' phases each last at least this long, so the control client's samples of them are
 * enough to compare (10 s, as the lock-out and backlog phases: 6 s gave 9 samples on a loaded machine).
 */
const LOW_PHASE_MIN_MS = 10_000;
/**
 * The registration spread (issue 59, low): addresses of one IPv4 /24, each registering once; counted
 * per address alone, all 60 would be served (and 50 addresses x 10 used up REGISTRATIONS_PER_HOUR). Each
 * attempt is a control-store write, so the spread is kept just past the network's 50.
 */
const SPREAD_ADDRESSES = 60;
const SPREAD_TRIES_PER_ADDRESS = 1;
/** Paper market orders one agent sends at once against one book (issue 59, low: each found the whole depth). */
const PAPER_ORDERS = 8;
/**
 * The stream floods (issue 55): one key opens this many WebSockets at once (STREAM_CONNECTIONS_PER_KEY,
 * 10, are served); then this many keys each hold their 10 connections, every one replaying three
 * channels from the log's first record and never reading.
 */
const STREAM_FLOOD_CONNECTIONS = 1_000;
const STREAM_STALLED_KEYS = 10;
const STREAM_CHANNELS_REPLAYED = ['trades', 'fills', 'signals'];

interface Sample {
  phase: string;
  ms: number;
  status: number;
}

class Client {
  private readonly agent: http.Agent;
  constructor(
    private readonly base: string,
    localAddress: string,
    maxSockets: number,
  ) {
    // Idle sockets are closed by this client after 4 s, before the server's 5 s keep-alive timeout
    // (Node's default): a request sent on a socket the server is closing at that instant ends in a reset,
    // which read as a status-0 "5xx" (1 registration in 10,000, in two CI runs). The agent's timeout
    // destroys only free sockets; a request in flight only gets a 'timeout' event, which nothing handles.
    this.agent = new http.Agent({ keepAlive: true, maxSockets, localAddress, timeout: 4_000 });
  }

  request(
    pathAndQuery: string,
    init: { key?: string; method?: string; body?: unknown } = {},
  ): Promise<{ status: number; ms: number; body: string }> {
    const started = performance.now();
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    return new Promise((resolve) => {
      const request = http.request(
        `${this.base}${pathAndQuery}`,
        {
          agent: this.agent,
          method: init.method ?? (body ? 'POST' : 'GET'),
          headers: {
            ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, ms: performance.now() - started, body: Buffer.concat(chunks).toString('utf8') }),
          );
          response.on('error', () => resolve({ status: 0, ms: performance.now() - started, body: '' }));
        },
      );
      request.on('error', () => resolve({ status: 0, ms: performance.now() - started, body: '' }));
      request.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/**
 * Runs `make` for every item, `concurrency` at a time, starting one at most every `intervalMs`: under the
 * key's rate limit however fast the service answers, and not one at a time when it answers slowly.
 */
async function paced<T, R>(items: readonly T[], intervalMs: number, concurrency: number, make: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let nextStartMs = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        const waitMs = nextStartMs - Date.now();
        nextStartMs = Math.max(Date.now(), nextStartMs) + intervalMs;
        if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
        results[index] = await make(items[index]!);
      }
    }),
  );
  return results;
}

/** Waits out the rest of a phase that started at `startedMs` and lasts at least LOW_PHASE_MIN_MS. */
const phaseRest = (startedMs: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, LOW_PHASE_MIN_MS - (Date.now() - startedMs))));

/** Runs `count` requests made by `make(i)`, `concurrency` at a time; returns status counts. */
async function flood(count: number, concurrency: number, make: (i: number) => Promise<{ status: number }>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const { status } = await make(next++);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/**
 * ABUSE_PHASES (comma-separated) runs some phases only, e.g. `lockout,subscriptions,backlog`; the
 * backlog flood needs the subscription flood's webhooks. Default: every phase.
 */
export const PHASES = [
  'registrations',
  'cache-busting',
  'slow-queries',
  'webhooks',
  'lockout',
  'subscriptions',
  'backlog',
  'crafted-input',
  'registration-spread',
  'paper-liquidity',
  'streams',
];
const selected = new Set(process.env.ABUSE_PHASES ? process.env.ABUSE_PHASES.split(',').map((name) => name.trim()) : PHASES);
if (selected.has('backlog')) selected.add('subscriptions');

const startedAt = Date.now();
/** Progress on stderr as the suite runs (jest buffers console output until the end). */
const progress = (message: string) => process.stderr.write(`[abuse +${Math.round((Date.now() - startedAt) / 1000)} s] ${message}\n`);

let demo: Child | undefined;
let dataDir: string | undefined;
let hanging: Receiver | undefined;
let fast: Receiver | undefined;

async function main(): Promise<Record<string, unknown>> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-abuse-'));
  demo = startChild('services/demo.ts', {
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: '0',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    // A hanging receiver holds a slot this long per attempt (15 s in production; shorter keeps the run bounded).
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_PENDING_PER_SUBSCRIPTION: String(BACKLOG),
    // Each phase is compared with the idle one: the demo's background history fill (on by default) reads
    // its simulated past during the first minutes and its work would land in whichever phases it overlaps
    // (a run with it on measured idle p99 638 ms against 239 without, and one 6.8 s sample in the lockout).
    CHAIN_HISTORY: 'off',
  });
  await waitFor(async () => (await fetch(`${base}/api/openapi.yaml`).catch(() => null))?.ok, 90_000, 'the demo to serve', 500);
  const pid = demo.process.pid!;
  const admin = JSON.parse(fs.readFileSync(path.join(dataDir, 'admin.json'), 'utf8')) as { url: string; token: string };
  const issue = async (tier: '1' | '2' | '3', name: string): Promise<string> => {
    const response = await fetch(`${admin.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, tier }),
    });
    return ((await response.json()) as { data: { api_key: string } }).data.api_key;
  };
  const controlKey = await issue('2', 'control');
  const controlClient = new Client(base, '127.0.0.100', 4);
  const markets = await waitFor(
    async () => {
      const response = await controlClient.request('/v1/markets?status=active&sort=volume&limit=10', { key: controlKey });
      const data = response.status === 200 ? (JSON.parse(response.body).data as Array<{ id: string; slug: string }>) : [];
      return data.length === 10 ? data : null;
    },
    60_000,
    'markets',
    500,
  );
  const top = markets[0]!;

  // The control account's webhook to a fast receiver, for delivery latency before and during the webhook flood.
  fast = await startReceiver();
  hanging = await startReceiver();
  const controlHook = await controlClient.request('/v1/webhooks', {
    key: controlKey,
    body: { url: `${fast.url}/ok`, events: ['trade.executed'] },
  });
  if (controlHook.status !== 201) throw new Error(`control subscription: HTTP ${controlHook.status} ${controlHook.body}`);
  const controlHookId = JSON.parse(controlHook.body).data.id as string;

  // Control client: cached market reads, a tier 2 read and the account's own usage, round-robin.
  const controlUrls = [
    '/v1/markets?status=active&sort=volume&limit=10',
    `/v1/markets/${top.slug}`,
    `/v1/markets/${top.id}/ohlcv?interval=1h&limit=24`,
    '/v1/trades?limit=20',
    '/v1/usage',
  ];
  const samples: Sample[] = [];
  let phase = 'warm-up';
  let controlRunning = true;
  const controlLoop = (async () => {
    for (let i = 0; controlRunning; i++) {
      const { ms, status } = await controlClient.request(controlUrls[i % controlUrls.length]!, { key: controlKey });
      samples.push({ phase, ms, status });
      await new Promise((resolve) => setTimeout(resolve, CONTROL_INTERVAL_MS));
    }
  })();
  // The probe: another account's key list and paper account, the reads one account's copy fan-out
  // used to starve (issue 59 H2), sampled from an address of its own.
  const probeClient = new Client(base, '127.0.0.98', 2);
  const probeAgent = await probeClient.request('/v1/agents/register', { body: { name: 'probe' } });
  if (probeAgent.status !== 201) throw new Error(`probe agent: HTTP ${probeAgent.status} ${probeAgent.body}`);
  const probeKey = JSON.parse(probeAgent.body).data.api_key as string;
  const probeSamples: Sample[] = [];
  // A sandbox key's rate (RATE_SANDBOX_PER_SECOND, 5) and daily quota (2,000) bound the probe: it reads
  // four times a second, and only in the phases it measures.
  const probed = new Set(['idle', 'subscriptions', 'backlog']);
  const probeLoop = (async () => {
    for (let i = 0; controlRunning; i++) {
      if (probed.has(phase)) {
        const { ms, status } = await probeClient.request(i % 2 === 0 ? '/v1/keys' : '/v1/paper/account', { key: probeKey });
        probeSamples.push({ phase, ms, status });
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  })();
  // A measured phase ends only once the control client, and the probe where it reads, has
  // MIN_PHASE_SAMPLES of it (waiting at most PHASE_SAMPLE_WAIT_MS): an attack that a machine finishes
  // in a few seconds otherwise leaves a dozen samples, whose p99 compares nothing (12 in one CI run).
  const measured = new Set(['idle', ...PHASES]);
  const enterPhase = async (next: string) => {
    const deadline = Date.now() + PHASE_SAMPLE_WAIT_MS;
    const count = (list: Sample[]) => list.filter((s) => s.phase === phase).length;
    const short = () =>
      (measured.has(phase) && count(samples) < MIN_PHASE_SAMPLES) || (probed.has(phase) && count(probeSamples) < MIN_PHASE_SAMPLES);
    while (short() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    phase = next;
    progress(next);
  };
  const rss: Array<{ phase: string; bytes: number }> = [];
  const rssTimer = setInterval(() => rss.push({ phase, bytes: rssBytes(pid) }), 500);
  const attackStatuses = new Map<string, Map<number, number>>();
  const report: Record<string, unknown> = {};

  try {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    await enterPhase('idle');
    await new Promise((resolve) => setTimeout(resolve, 12_000));

    if (selected.has('registrations')) {
      // 1. 10,000 registrations from eight addresses.
      await enterPhase('registrations');
      const registrars = Array.from({ length: 8 }, (_, i) => new Client(base, `127.0.0.${2 + i}`, FLOOD_CONCURRENCY));
      attackStatuses.set(
        phase,
        await flood(10_000, FLOOD_CONCURRENCY, (i) => registrars[i % 8]!.request('/v1/agents/register', { body: { name: `flood-${i}` } })),
      );
      for (const client of registrars) client.close();
    }
    if (selected.has('cache-busting')) {
      // 2. 100,000 cache-busting URLs from ten Tier 1 keys: spellings, orders, values and undeclared parameters.
      await enterPhase('cache-busting');
      const bustingStarted = Date.now();
      // Free (Tier 1) keys: what a cache-busting attacker would hold. Their rate limits refuse most of the
      // flood cheaply, and the ten share one address's bucket (RATE_FREE_PER_IP_PER_SECOND).
      const busters = await Promise.all(Array.from({ length: 10 }, (_, i) => issue('1', `buster-${i}`)));
      const busterClient = new Client(base, '127.0.0.20', BUSTING_CONCURRENCY);
      const statuses = ['active', 'all', 'closed', 'resolved'];
      const sorts = ['volume', 'volume_total', 'liquidity', 'created', 'end_date'];
      const bustingUrl = (i: number) => {
        if (i % 10_000 === 0) progress(`cache-busting: ${i} sent`);
        const limit = 1 + (i % 500);
        const status = statuses[Math.floor(i / 500) % 4]!;
        const sort = sorts[Math.floor(i / 2000) % 5]!;
        switch (i % 5) {
          case 0:
            return `/v1/markets?limit=${limit}&status=${status}&sort=${sort}`;
          case 1:
            return `/v1/markets?sort=${sort}&status=${encodeURIComponent(status).replace(/a/g, '%61')}&limit=0${limit}`;
          case 2:
            return `/v1/MARKETS?status=${status}&limit=${limit}.0&sort=${sort}`;
          case 3:
            return `/v1/markets?limit=${limit}&status=${status}&sort=${sort}&cb=${i}`;
          default:
            return `/v1/markets?limit=${limit}&limit=${limit + 1}&status=${status}`;
        }
      };
      attackStatuses.set(
        phase,
        await flood(100_000, FLOOD_CONCURRENCY, (i) => busterClient.request(bustingUrl(i), { key: busters[i % 10] })),
      );
      busterClient.close();
      report.cache_busting_seconds = (Date.now() - bustingStarted) / 1000;
      const metrics = await (await fetch(`${admin.url}/metrics`)).text();
      const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
      report.read_cache = { entries: gauge('tapeline_read_cache_entries'), bytes: gauge('tapeline_read_cache_bytes') };
    }
    if (selected.has('slow-queries')) {
      // 3. 1,000 concurrent slow queries, three waves, from ten Tier 2 keys.
      await enterPhase('slow-queries');
      const slowKeys = await Promise.all(Array.from({ length: 10 }, (_, i) => issue('2', `slow-${i}`)));
      const slowClient = new Client(base, '127.0.0.30', 1_000);
      const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString();
      const slowUrls = [
        '/v1/trades?min_size=1000000000000',
        `/v1/trades?outcome=zzz&from=${monthAgo}&limit=500`,
        `/v1/trades?min_size=1000000000000&from=${monthAgo}&limit=500`,
        `/v1/markets/${top.id}/price/ticks?kind=history&limit=1000`,
        `/v1/orderbook/history?market=${top.id}&interval=1m&from=${new Date(Date.now() - 86_400_000).toISOString()}`,
        '/v1/leaderboard?sort_by=volume&limit=500',
        '/v1/markets?search=zzzz&status=all&limit=500',
      ];
      const slowStatuses = new Map<number, number>();
      for (let wave = 0; wave < 3; wave++) {
        const results = await Promise.all(
          Array.from({ length: 1_000 }, (_, i) => slowClient.request(slowUrls[i % slowUrls.length]!, { key: slowKeys[i % 10] })),
        );
        for (const { status } of results) slowStatuses.set(status, (slowStatuses.get(status) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
      attackStatuses.set(phase, slowStatuses);
      slowClient.close();
    }
    if (selected.has('webhooks')) {
      // 4. 1,000 subscriptions (100 accounts x 10, the per-account limit) to a receiver that never answers.
      await enterPhase('webhooks-setup');
      const hookClient = new Client(base, '127.0.0.40', 16);
      const hookStatuses = new Map<number, number>();
      const owners = await Promise.all(Array.from({ length: 100 }, (_, i) => issue('1', `hooked-${i}`)));
      await flood(1_000, 16, async (i) => {
        const result = await hookClient.request('/v1/webhooks', {
          key: owners[Math.floor(i / 10)],
          body: { url: `${hanging!.url}/hang`, events: ['trade.executed'] },
        });
        hookStatuses.set(result.status, (hookStatuses.get(result.status) ?? 0) + 1);
        return result;
      });
      await enterPhase('webhooks');
      const deliveriesBefore = fast.at('/ok').length;
      await new Promise((resolve) => setTimeout(resolve, 40_000));
      attackStatuses.set('webhooks-setup', hookStatuses);
      hookClient.close();
      report.webhooks = {
        hanging_requests: hanging.at('/hang').length,
        control_deliveries_during: fast.at('/ok').length - deliveriesBefore,
      };
    }
    if (selected.has('lockout')) {
      // 5. Lock-out burst (issue 59 H1): made-up keys from many addresses at once, while keys never used
      // before (so no process has them cached) and web sign-ins must all be served.
      await enterPhase('lockout');
      const freshKeys = await Promise.all(Array.from({ length: 40 }, (_, i) => issue('1', `fresh-${i}`)));
      const guessers = Array.from({ length: LOCKOUT_ADDRESSES }, (_, i) => new Client(base, `127.0.1.${1 + i}`, 8));
      // Each valid key comes from its own address, as separate users do: one address's free keys share
      // one bucket (RATE_FREE_PER_IP_PER_SECOND), and 40 keys cycled from one address as fast as it
      // answers were refused by that limit, not by the lock-out this phase measures.
      const validClients = freshKeys.map((_, i) => new Client(base, `127.0.0.${101 + i}`, 1));
      const valid = { requests: 0, ok: 0, statuses: new Map<number, number>() };
      let bursting = true;
      const validLoop = (async () => {
        // Each key within its tier's rate (Tier 1: RATE_TIER1_PER_SECOND 10): 40 keys at 1 a second.
        // Unpaced, a fast run sent 11 a second per key and met that limit, not the lock-out. Each is sent
        // when due, not after the one before has been answered: one at a time, a loaded machine
        // answering in 500 ms got 20 requests into the phase, too few to say the keys were all served.
        const started = Date.now();
        const sent: Array<Promise<void>> = [];
        for (let i = 0; bursting || i < 4; i++) {
          const due = started + i * VALID_INTERVAL_MS;
          if (Date.now() < due) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
          const key = freshKeys[i % freshKeys.length]!;
          const validClient = validClients[i % freshKeys.length]!;
          const answer =
            i % 4 === 3 ? validClient.request('/v1/session', { body: { api_key: key } }) : validClient.request('/v1/usage', { key });
          sent.push(
            answer.then((result) => {
              valid.requests++;
              if (result.status === 200 || result.status === 201) valid.ok++;
              valid.statuses.set(result.status, (valid.statuses.get(result.status) ?? 0) + 1);
            }),
          );
        }
        await Promise.all(sent);
      })();
      const burstStarted = Date.now();
      const bogus = LOCKOUT_ADDRESSES * LOCKOUT_KEYS_PER_ADDRESS;
      attackStatuses.set(
        phase,
        await flood(bogus, 64, (i) =>
          guessers[i % LOCKOUT_ADDRESSES]!.request('/v1/usage', { key: `aif_${i.toString(36).padStart(8, '0')}${'x'.repeat(35)}` }),
        ),
      );
      const burstSeconds = (Date.now() - burstStarted) / 1000;
      // The valid keys keep going after the burst, while its failures are still being counted, and the
      // phase lasts 10 s so that the control client's samples of it are enough to compare (a 5 s phase
      // gave it 18 samples on a busy machine).
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 10_000 - (Date.now() - burstStarted))));
      bursting = false;
      await validLoop;
      for (const client of guessers) client.close();
      for (const client of validClients) client.close();
      report.lockout = {
        bogus_requests: bogus,
        addresses: LOCKOUT_ADDRESSES,
        burst_seconds: burstSeconds,
        valid_requests: valid.requests,
        valid_served: valid.ok,
        valid_statuses: Object.fromEntries(valid.statuses),
      };
    }
    if (selected.has('subscriptions')) {
      // 6. Subscription flood (issue 59 H2): Tier 2 accounts each follow the busiest wallets with as
      // many copy subscriptions as they may (and a few more, refused), each with a webhook for its copy
      // events to the hanging receiver; then 40 s of the leaders' fills fanned out.
      await enterPhase('subscriptions-setup');
      const recent = JSON.parse((await controlClient.request('/v1/trades?limit=500', { key: controlKey })).body).data as Array<{
        wallet: string;
      }>;
      const tally = new Map<string, number>();
      for (const { wallet } of recent) tally.set(wallet, (tally.get(wallet) ?? 0) + 1);
      const leaders = [...tally]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, 3)
        .map(([wallet]) => wallet);
      if (leaders.length === 0) throw new Error('no wallets traded yet to follow');
      const followers = await Promise.all(Array.from({ length: FLOOD_ACCOUNTS }, (_, i) => issue('2', `follower-${i}`)));
      const followerClient = new Client(base, '127.0.0.50', 16);
      const followerHooks: Array<{ id: string; key: string }> = [];
      for (const key of followers) {
        const hook = await followerClient.request('/v1/webhooks', {
          key,
          body: { url: `${hanging!.url}/copy`, events: ['copy.executed', 'risk.blocked'] },
        });
        if (hook.status === 201) followerHooks.push({ id: JSON.parse(hook.body).data.id as string, key });
      }
      attackStatuses.set(
        phase,
        await flood(FLOOD_ACCOUNTS * COPY_TRIES_PER_ACCOUNT, 16, (i) =>
          followerClient.request('/v1/copy/subscriptions', {
            key: followers[i % FLOOD_ACCOUNTS],
            body: {
              leader_wallet: leaders[i % leaders.length],
              sizing: { rule: 'fixed', usdc: '1' },
              limits: { max_daily_notional_usdc: 1_000_000 },
            },
          }),
        ),
      );
      await enterPhase('subscriptions');
      await new Promise((resolve) => setTimeout(resolve, 40_000));
      report.subscriptions = { leaders: leaders.length, accounts: FLOOD_ACCOUNTS, tries_per_account: COPY_TRIES_PER_ACCOUNT };

      if (selected.has('backlog')) {
        // 7. Backlog flood (issue 59 M2): test events on top of the copy events each follower's webhook
        // already holds; no subscription may hold more than its backlog, and what did not fit is counted.
        await enterPhase('backlog');
        const backlogStarted = Date.now();
        const backlogStatuses = await flood(BACKLOG_TEST_EVENTS * 4, 16, (i) =>
          followerClient.request(`/v1/webhooks/${followerHooks[i % 4]!.id}/test`, { key: followerHooks[i % 4]!.key, method: 'POST' }),
        );
        // The phase lasts at least 10 s so the probe's samples of it are enough to compare (a flood of
        // 5 s gave it 20, one short of the bound).
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 10_000 - (Date.now() - backlogStarted))));
        attackStatuses.set(phase, backlogStatuses);
        let pendingMax = 0;
        let dropped = 0;
        for (const hook of followerHooks) {
          const shown = JSON.parse((await followerClient.request(`/v1/webhooks/${hook.id}`, { key: hook.key })).body).data as {
            dropped_events: number;
          };
          dropped += shown.dropped_events;
          const pending = JSON.parse(
            (await followerClient.request(`/v1/webhooks/${hook.id}/deliveries?status=pending&limit=500`, { key: hook.key })).body,
          ).data as unknown[];
          pendingMax = Math.max(pendingMax, pending.length);
        }
        report.backlog = {
          cap: BACKLOG,
          subscriptions: followerHooks.length,
          test_events: BACKLOG_TEST_EVENTS * 4,
          test_events_queued: backlogStatuses.get(202) ?? 0,
          test_events_refused: backlogStatuses.get(409) ?? 0,
          pending_max: pendingMax,
          dropped_events: dropped,
        };
      }
      followerClient.close();
    }
    if (selected.has('crafted-input')) {
      // 8. Crafted input (issue 59, low): cursors whose key is not a row id, bound to the public
      // fingerprint of each control-store listing, and numbers spelled to slip past a type check
      // (1e309 is Infinity, 0x10 is 16), in query strings and JSON bodies. Each must be a 400, never a
      // 500 from a store or a value read as another number. Paced under each key's rate limit, so
      // every answer is the check's own.
      await enterPhase('crafted-input');
      const phaseStarted = Date.now();
      const crafterKey = await issue('2', 'crafter');
      // Networks of their own: the registrations flood has used 127.0.0.0/24's hourly registrations.
      const crafterClient = new Client(base, '127.0.4.60', 4);
      const agentClient = new Client(base, '127.0.4.61', 4);
      const agent = await agentClient.request('/v1/agents/register', { body: { name: 'crafter-agent' } });
      if (agent.status !== 201) throw new Error(`crafter agent: HTTP ${agent.status} ${agent.body}`);
      const agentKey = JSON.parse(agent.body).data.api_key as string;
      const listings: Array<{ path: string; filters: Record<string, unknown>; agent: boolean }> = [
        { path: '/copy/subscriptions', filters: {}, agent: false },
        { path: '/copy/intents', filters: {}, agent: false },
        { path: '/strategies', filters: {}, agent: false },
        { path: '/usage/refusals', filters: {}, agent: false },
        { path: '/fees/ledger', filters: { state: 'all' }, agent: false },
        { path: '/paper/orders?epoch=1', filters: { status: 'all', epoch: 1 }, agent: true },
        { path: '/paper/fills?epoch=1', filters: { epoch: 1 }, agent: true },
        { path: '/paper/settlements?epoch=1', filters: { epoch: 1 }, agent: true },
      ];
      const craftedKeys = [['abc'], ['1e3'], ['-1'], ['99999999999999999999']];
      const numeric: Array<{ path: string; name: string }> = [
        { path: '/markets', name: 'limit' },
        { path: '/events', name: 'limit' },
        { path: '/trades', name: 'limit' },
        { path: '/leaderboard', name: 'limit' },
        { path: '/traders/browse', name: 'limit' },
        { path: '/trades', name: 'min_size' },
        { path: '/volume/timeseries', name: 'range_days' },
        { path: '/keys', name: 'limit' },
        { path: '/copy/intents', name: 'limit' },
        { path: '/webhooks', name: 'limit' },
      ];
      const badNumbers = ['1e309', '-1e309', 'Infinity', 'NaN', '0x10', '0b11', '1e400', ''];
      type Probe = { what: string; key: string; client: Client; url: string; body?: unknown };
      const probes: Probe[] = [];
      for (const listing of listings) {
        for (const crafted of craftedKeys) {
          const separator = listing.path.includes('?') ? '&' : '?';
          probes.push({
            what: `${listing.path} cursor ${JSON.stringify(crafted)}`,
            key: listing.agent ? agentKey : crafterKey,
            client: listing.agent ? agentClient : crafterClient,
            url: `/v1${listing.path}${separator}cursor=${encodeCursor(crafted, queryFingerprint(listing.filters))}`,
          });
        }
      }
      for (const { path: route, name } of numeric) {
        for (const value of badNumbers) {
          probes.push({
            what: `${route} ${name}=${value}`,
            key: crafterKey,
            client: crafterClient,
            url: `/v1${route}?${name}=${encodeURIComponent(value)}`,
          });
        }
      }
      for (const value of ['0x10', '1e309']) {
        probes.push({
          what: `webhook filters.min_size_usdc ${value}`,
          key: crafterKey,
          client: crafterClient,
          url: '/v1/webhooks',
          body: { url: `${fast!.url}/crafted`, events: ['trade.executed'], filters: { min_size_usdc: value } },
        });
        probes.push({
          what: `paper order size ${value}`,
          key: agentKey,
          client: agentClient,
          url: '/v1/paper/orders',
          body: { market_id: top.id, outcome: 'YES', side: 'buy', type: 'market', size: value },
        });
      }
      // Tier 2 keys may make 50 requests a second and sandbox keys 5: 40 ms and 250 ms apart stay under both.
      const answers = await Promise.all(
        [false, true].map((forAgent) =>
          paced(
            probes.filter((probe) => (probe.key === agentKey) === forAgent),
            forAgent ? 250 : 40,
            4,
            async (probe) => ({ what: probe.what, ...(await probe.client.request(probe.url, { key: probe.key, body: probe.body })) }),
          ),
        ),
      );
      const all = answers.flat();
      const statuses = new Map<number, number>();
      for (const { status } of all) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      attackStatuses.set(phase, statuses);
      await phaseRest(phaseStarted);
      crafterClient.close();
      agentClient.close();
      report.crafted_input = {
        requests: all.length,
        cursors: listings.length * craftedKeys.length,
        numbers: numeric.length * badNumbers.length + 4,
        not_400: all
          .filter((answer) => answer.status !== 400)
          .map(({ what, status, body }) => ({ what, status, body: body.slice(0, 200) })),
      };
    }
    if (selected.has('registration-spread')) {
      // 9. Registration spread (issue 59, low): every address of one /24 registers as often as one
      // address may; counted per address only, 50 of them used up the service-wide hourly cap for
      // everyone. The network gets a few clients' worth, and an address of another network can still register.
      await enterPhase('registration-spread');
      const phaseStarted = Date.now();
      const spreaders = Array.from({ length: SPREAD_ADDRESSES }, (_, i) => new Client(base, `127.0.2.${1 + i}`, 2));
      const spreadStatuses = await flood(SPREAD_ADDRESSES * SPREAD_TRIES_PER_ADDRESS, 16, (i) =>
        spreaders[i % SPREAD_ADDRESSES]!.request('/v1/agents/register', { body: { name: `spread-${i}` } }),
      );
      attackStatuses.set(phase, spreadStatuses);
      const outsider = new Client(base, '127.0.3.1', 1);
      const outsiderAnswer = await outsider.request('/v1/agents/register', { body: { name: 'outsider' } });
      await phaseRest(phaseStarted);
      for (const client of [...spreaders, outsider]) client.close();
      report.registration_spread = {
        addresses: SPREAD_ADDRESSES,
        tries: SPREAD_ADDRESSES * SPREAD_TRIES_PER_ADDRESS,
        registered: spreadStatuses.get(201) ?? 0,
        other_network_status: outsiderAnswer.status,
      };
    }
    if (selected.has('paper-liquidity')) {
      // 10. Paper liquidity (issue 59, low): one agent sends market buys at once, together asking for
      // more than the best ask holds. Every order met the same depth before; now what one order took
      // from a book is gone for the agent's next, so per book and price the agent's fills never add up
      // to more than the book offered.
      await enterPhase('paper-liquidity');
      const phaseStarted = Date.now();
      const paperClient = new Client(base, '127.0.5.62', PAPER_ORDERS);
      const registered = await paperClient.request('/v1/agents/register', { body: { name: 'liquidity-taker' } });
      if (registered.status !== 201) throw new Error(`paper agent: HTTP ${registered.status} ${registered.body}`);
      const paperKey = JSON.parse(registered.body).data.api_key as string;
      type Level = { price: number; size_shares: number };
      type Outcome = { outcome: string; hash: string | null; timestamp: string | null; asks: Level[] };
      const booksSeen = new Map<string, Level[]>();
      const bookOf = async (marketId: string): Promise<Outcome | null> => {
        const answer = await controlClient.request(`/v1/markets/${marketId}/orderbook`, { key: controlKey });
        if (answer.status !== 200) return null;
        const first = (JSON.parse(answer.body).data.outcomes as Outcome[])[0];
        if (!first?.hash || first.asks.length === 0) return null;
        booksSeen.set(first.hash, first.asks);
        return first;
      };
      // The market whose book changed longest ago (within the hour paper orders accept), so that the
      // orders most likely meet the book read just before them. A demo started moments ago may not
      // have indexed books yet: they are waited for, at most 90 s.
      // Markets still accepting orders now: the list read at the start may have closed since, and a
      // closed market's book is the quietest of all (a full CI run met 8 x 400 on one).
      const open = await controlClient.request('/v1/markets?status=active&sort=volume&limit=20', { key: controlKey });
      const tradable = open.status === 200 ? (JSON.parse(open.body).data as Array<{ id: string }>) : [];
      // Each order asks for the whole best level, at most 1,000 shares: past the best level the orders
      // fill deeper at higher prices, and sized by the best price alone (1,000 USDC there) the last of
      // them overdrew the 10,000 paper cash (a 400 in a CI run). At any price under 1, eight orders of
      // 1,000 shares and their fees stay within it.
      const orderSizeAt = (best: Level) => Math.max(1, Math.floor(Math.min(best.size_shares, 1_000) * 100) / 100);
      // Only a best level the orders together ask more than is a test of the depth: one deeper than the
      // paper cash buys would be met by every order whatever the service does.
      const askedOver = (best: Level) => orderSizeAt(best) * PAPER_ORDERS > best.size_shares;
      const candidates = await waitFor(
        async () => {
          const found: Array<{ id: string; book: Outcome }> = [];
          for (const market of tradable) {
            const book = await bookOf(market.id);
            if (book?.timestamp && Date.now() - Date.parse(book.timestamp) < 3_000_000 && askedOver(book.asks[0]!))
              found.push({ id: market.id, book });
          }
          return found.length > 0 ? found : null;
        },
        90_000,
        'a fresh book whose best ask the orders together exceed',
        2_000,
      );
      candidates.sort((a, b) => Date.parse(a.book.timestamp!) - Date.parse(b.book.timestamp!));
      const target = candidates[0]!;
      const best = target.book.asks[0]!;
      const size = orderSizeAt(best).toFixed(2);
      const orders = await Promise.all(
        Array.from({ length: PAPER_ORDERS }, () =>
          paperClient.request('/v1/paper/orders', {
            key: paperKey,
            body: { market_id: target.id, outcome: target.book.outcome, side: 'buy', type: 'market', size },
          }),
        ),
      );
      await bookOf(target.id);
      const paperStatuses = new Map<number, number>();
      for (const { status } of orders) paperStatuses.set(status, (paperStatuses.get(status) ?? 0) + 1);
      attackStatuses.set(phase, paperStatuses);
      // Per book the orders met and price: what the agent's orders filled, against what the book offered.
      const taken = new Map<string, bigint>();
      const micros = (value: string | number) => BigInt(Math.round(Number(value) * 1e6));
      let checkedOrders = 0;
      for (const answer of orders.filter((o) => o.status === 201)) {
        const order = JSON.parse(answer.body).data as { book: { hash: string | null }; fills: Array<{ price: string; size: string }> };
        if (!order.book.hash || !booksSeen.has(order.book.hash)) continue;
        checkedOrders++;
        for (const fill of order.fills) {
          const at = `${order.book.hash}@${Number(fill.price)}`;
          taken.set(at, (taken.get(at) ?? 0n) + micros(fill.size));
        }
      }
      const overTaken = [...taken].flatMap(([at, filled]) => {
        const [hash, price] = at.split('@') as [string, string];
        const offered = booksSeen
          .get(hash)!
          .filter((level) => level.price === Number(price))
          .reduce((sum, level) => sum + micros(level.size_shares), 0n);
        return filled > offered ? [{ book: hash, price, filled: Number(filled) / 1e6, offered: Number(offered) / 1e6 }] : [];
      });
      await phaseRest(phaseStarted);
      paperClient.close();
      report.paper_liquidity = {
        market: target.id,
        orders: PAPER_ORDERS,
        size,
        best_ask: best,
        asked_over_best_level: Number(size) * PAPER_ORDERS > best.size_shares,
        orders_on_a_known_book: checkedOrders,
        over_taken: overTaken,
        first_refusal: orders.find((o) => o.status !== 201)?.body.slice(0, 300) ?? null,
      };
    }
    if (selected.has('streams')) {
      // 11. Streams (issue 55): a connection flood from one key, then stalled readers: keys at their
      // connection cap, each connection replaying whole channels from the log's first record into a
      // socket it never reads. The service must refuse past the caps, hold each stalled connection to its
      // send buffer and drop it (slow_consumer), keep its memory bounded, and keep a control subscriber
      // on another key receiving live trades.
      await enterPhase('streams');
      const phaseStarted = Date.now();
      const wsBase = base.replace(/^http/, 'ws');
      const sockets: WebSocket[] = [];
      const connect = (key: string, localAddress: string) =>
        new Promise<{ status: number; ws: WebSocket | null; error?: string }>((resolve) => {
          const ws = new WebSocket(`${wsBase}/v1/stream`, { headers: { authorization: `Bearer ${key}` }, localAddress });
          sockets.push(ws);
          ws.once('open', () => resolve({ status: 101, ws }));
          ws.once('unexpected-response', (request, response) => {
            response.resume();
            request.destroy();
            resolve({ status: response.statusCode ?? 0, ws: null });
          });
          ws.once('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, ws: null, error: error.code ?? error.message }));
        });
      const streamFigure = async (name: string) =>
        Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await (await fetch(`${admin.url}/metrics`)).text())?.[1] ?? Number.NaN);
      const slowConsumers = () => streamFigure('tapeline_stream_slow_consumers_total');
      const slowBefore = await slowConsumers();
      // The replay gauges' peaks while the stalled readers replay (sampled with the drop count below).
      const replays = { running: 0, waiting: 0 };

      // The control subscriber: live trades on its own key and address, the whole phase.
      const controlStreamKey = await issue('2', 'stream-control');
      const control = await connect(controlStreamKey, '127.0.6.1');
      if (!control.ws) throw new Error(`control stream: HTTP ${control.status}`);
      const controlTrades: number[] = [];
      const controlErrors: unknown[] = [];
      control.ws.on('message', (raw) => {
        const message = JSON.parse(raw.toString()) as { type: string };
        if (message.type === 'trade') controlTrades.push(Date.now());
        else if (message.type === 'error') controlErrors.push(message);
      });
      control.ws.send(JSON.stringify({ type: 'subscribe', channel: 'trades', subscription: 'control' }));

      // One key's flood: every connection at once.
      const flooder = await issue('2', 'stream-flooder');
      const flood = await Promise.all(Array.from({ length: STREAM_FLOOD_CONNECTIONS }, () => connect(flooder, '127.0.6.2')));
      const floodStatuses = new Map<number, number>();
      for (const { status } of flood) floodStatuses.set(status, (floodStatuses.get(status) ?? 0) + 1);
      attackStatuses.set('streams-flood', floodStatuses);

      // Stalled readers: each key's connections at the cap, each subscription replaying from offset 0.
      const fromStart = (channel: string) =>
        encodeStreamCursor(new Map(CHANNELS[channel]!.streams.map((stream) => [stream.topic, Array(stream.partitions).fill(0)])));
      const stalledKeys = await Promise.all(Array.from({ length: STREAM_STALLED_KEYS }, (_, i) => issue('2', `stream-stalled-${i}`)));
      const stalled = (
        await Promise.all(stalledKeys.flatMap((key, i) => Array.from({ length: 10 }, () => connect(key, `127.0.6.${10 + i}`))))
      ).flatMap(({ ws }) => (ws ? [ws] : []));
      for (const ws of stalled) {
        for (const channel of STREAM_CHANNELS_REPLAYED)
          ws.send(JSON.stringify({ type: 'subscribe', channel, subscription: channel, cursor: fromStart(channel) }));
        // Never read again: the kernel's buffers fill, then the server's.
        (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      }
      // STREAM_SLOW_CONSUMER_MS (10 s) after a stalled connection's buffer fills, it is dropped.
      const dropped = await waitFor(
        async () => {
          replays.running = Math.max(replays.running, await streamFigure('tapeline_stream_replays_running'));
          replays.waiting = Math.max(replays.waiting, await streamFigure('tapeline_stream_replays_waiting'));
          const now = await slowConsumers();
          return now - slowBefore >= stalled.length ? now - slowBefore : null;
        },
        60_000,
        'the stalled stream readers dropped',
        1_000,
      ).catch(async () => (await slowConsumers()) - slowBefore);
      const tradesBefore = controlTrades.length;
      await phaseRest(phaseStarted);
      // The control subscriber still receives after the floods (the demo trades every few seconds).
      await waitFor(
        async () => (controlTrades.length > tradesBefore ? true : null),
        30_000,
        'a live trade on the control stream',
        250,
      ).catch(() => null);
      const gaps = controlTrades.slice(1).map((at, i) => at - controlTrades[i]!);
      report.streams = {
        flood_connections: STREAM_FLOOD_CONNECTIONS,
        flood_served: floodStatuses.get(101) ?? 0,
        // Why a connection of the flood got no HTTP answer at all (status 0), by error code.
        flood_errors: Object.fromEntries(
          [...new Set(flood.flatMap(({ error }) => (error ? [error] : [])))].map((code) => [
            code,
            flood.filter((f) => f.error === code).length,
          ]),
        ),
        stalled_connections: stalled.length,
        stalled_subscriptions: stalled.length * STREAM_CHANNELS_REPLAYED.length,
        slow_consumers_dropped: dropped,
        replays_running_max: replays.running,
        replays_waiting_max: replays.waiting,
        control_trades: controlTrades.length,
        control_trades_after_floods: controlTrades.length - tradesBefore,
        control_max_gap_ms: gaps.length > 0 ? Math.max(...gaps) : null,
        control_errors: controlErrors,
      };
      for (const ws of sockets) ws.terminate();
    }
    await enterPhase('done');
  } finally {
    controlRunning = false;
    await controlLoop;
    await probeLoop;
    clearInterval(rssTimer);
    controlClient.close();
    probeClient.close();
  }

  // Control latency per phase against its idle p99.
  const byPhase = (name: string) => samples.filter((s) => s.phase === name);
  const idleP99 = percentile(
    byPhase('idle').map((s) => s.ms),
    99,
  );
  const phases = PHASES.filter((name) => selected.has(name));
  const control = Object.fromEntries(
    ['idle', ...phases].map((name) => {
      const list = byPhase(name).map((s) => s.ms);
      return [name, { samples: list.length, p50_ms: round(percentile(list, 50)), p99_ms: round(percentile(list, 99)) }];
    }),
  );
  const probeOf = (name: string) => probeSamples.filter((s) => s.phase === name).map((s) => s.ms);
  const probe = Object.fromEntries(
    ['idle', 'subscriptions', 'backlog']
      .filter((name) => name === 'idle' || selected.has(name))
      .map((name) => {
        const list = probeOf(name);
        return [
          name,
          {
            samples: list.length,
            p50_ms: round(percentile(list, 50)),
            p90_ms: round(percentile(list, 90)),
            p99_ms: round(percentile(list, 99)),
          },
        ];
      }),
  );
  const rssByPhase = Object.fromEntries(
    ['idle', ...phases].map((name) => [name, Math.round(Math.max(...rss.filter((r) => r.phase === name).map((r) => r.bytes)) / 1024 ** 2)]),
  );
  const deliveries = JSON.parse(
    (await new Client(base, '127.0.0.100', 1).request(`/v1/webhooks/${controlHookId}/deliveries?limit=500`, { key: controlKey })).body,
  ).data as Array<{ created_at: string; delivered_at: string | null }>;
  const lateness = deliveries.filter((d) => d.delivered_at).map((d) => Date.parse(d.delivered_at!) - Date.parse(d.created_at));
  Object.assign(report, {
    phases,
    control,
    probe,
    probe_non_200: probeSamples.filter((s) => s.status !== 200).length,
    probe_statuses: Object.fromEntries(
      [...new Set(probeSamples.map((s) => `${s.phase}:${s.status}`))].map((k) => [
        k,
        probeSamples.filter((s) => `${s.phase}:${s.status}` === k).length,
      ]),
    ),
    rss_mb_max: rssByPhase,
    control_webhook_delivery_ms: { count: lateness.length, p50: percentile(lateness, 50), p99: percentile(lateness, 99) },
    attack_statuses: Object.fromEntries([...attackStatuses].map(([name, counts]) => [name, Object.fromEntries(counts)])),
  });
  Object.assign(report, {
    idle_p99_ms: round(idleP99),
    control_non_200: samples.filter((s) => s.status !== 200).length,
    control_statuses: Object.fromEntries(
      [...new Set(samples.map((s) => `${s.phase}:${s.status}`))].map((k) => [
        k,
        samples.filter((s) => `${s.phase}:${s.status}` === k).length,
      ]),
    ),
    control_5xx: samples.filter((s) => s.status >= 500 || s.status === 0).length,
    // [phase, status, count]: which flood met a server error.
    attack_5xx: [...attackStatuses].flatMap(([phase, counts]) =>
      [...counts].filter(([status]) => status >= 500 || status === 0).map(([status, count]) => [phase, status, count]),
    ),
  });
  return report;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

main()
  .then((report) => process.stdout.write(`${JSON.stringify(report)}\n`))
  .catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await hanging?.close();
    await fast?.close();
    if (demo) {
      const stopped = demo.kill('SIGTERM');
      const timer = setTimeout(() => demo?.process.kill('SIGKILL'), 20_000);
      await stopped;
      clearTimeout(timer);
    }
    // Hundreds of megabytes of demo data: never left behind.
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });
