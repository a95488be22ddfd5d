/**
 * Abuse suite against the demo (the whole service as a child process, on loopback only, bounded in
 * count and time): 10,000 registrations, 100,000 cache-busting URLs, 1,000 concurrent slow queries,
 * 1,000 webhook subscriptions to a hanging receiver, 960 made-up keys from 24 addresses at once
 * (issue 59 H1: valid keys never used before and web sign-ins must all be served meanwhile), 1,000
 * copy subscriptions to the three busiest wallets (H2: another account's key list and paper account,
 * the probe, must keep answering) and a webhook backlog flood (M2: no subscription holds more than
 * its backlog, the rest counted as dropped), then the low findings an attacker probes: crafted cursors and
 * numbers spelled to slip past a type check (each a 400), every address of one /24 registering (the
 * network held to a few addresses' allowance, another network still served) and one agent's market
 * orders at once against one book (its depth taken once), and the live streams (one key's connection
 * flood; 100 connections replaying whole channels from offset 0 into sockets they never read, beside a
 * control subscriber on another key that must keep receiving). Throughout, a control client on its own key
 * and address keeps reading; the service must keep answering it (every control request a 200, p99
 * bounded against its idle p99), its RSS must stay bounded, and no response may be a 5xx. The floods
 * run in their own process (test/abuse/abuse-scenario.ts), which prints the report checked here.
 *
 * Latency: the target is a control p99 within 3x of idle. The report prints each phase's ratio; the
 * assertion is the stall bound of 10x, which fails if the service stops answering. The webhook phase
 * came out at 9.2x and 10.3x (failing CI once): each trade fanned out to 1,000 subscriptions in one
 * PGlite statement of 75-490 ms on the API's thread, and every claim spent 40 ms on the hanging
 * host's subscriptions. With the fan-out in chunks and the claim skipping hosts at their cap
 * (docs/WEBHOOKS.md, "Inside") a run measured registrations 2.8x, cache-busting 1.0x, slow queries
 * 2.1x and webhooks 3.1x (control p99 1,362 -> 409 ms), and a clean-clone run 2.5x, 1.4x, 2.9x and 2.0x.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../support/processes.js';

const P99_TARGET_FACTOR = 3;
const P99_STALL_FACTOR = 10;
// A stall bound never below this: with the other account's idle p50 at 15-29 ms, 10x is 150-290 ms, and
// the probe's p50 in the flood phases (each of the backlog's refused test deliveries a control-store
// transaction the probe's reads queue behind) measured 155 ms here and 320 ms in an official CI run on a
// slower machine; the stall the bound is for (issue 59 H2) was 1,871 ms at p50.
const STALL_FLOOR_MS = 750;
// The p90's floor: in a clean-clone run whose backlog phase fell on the e2e tier's start in the other
// lane, the probe's p90 was 972 ms (p50 286 ms, idle p90 71 ms). The stall it guards against still
// fails it: a p50 of 1,871 ms puts the p90 at least as high.
const P90_STALL_FLOOR_MS = 1_500;
const stallBound = (idleMs: number, floorMs = STALL_FLOOR_MS) => Math.max(P99_STALL_FACTOR * idleMs, floorMs);
// RSS may grow this much over idle during any phase. The growth is cumulative (the engine's allocator
// keeps what earlier phases used) and peaks in the last phase, the webhook flood: measured 160-442 MB
// over idle in 8 clean-clone runs (median ~250). Unbounded growth (a cache or queue without a bound over
// 100,000 URLs or 1,000 subscriptions) would exceed it by far.
const RSS_GROWTH_MB = 500;

test('abuse: the service keeps answering other keys, memory stays bounded, no 5xx', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test/abuse/abuse-scenario.ts')], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      ...(process.env.ABUSE_PHASES ? { ABUSE_PHASES: process.env.ABUSE_PHASES } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as any;
  // The phases that ran (ABUSE_PHASES selects some; CI runs them all).
  const phases: string[] = report.phases;
  const ran = (name: string) => phases.includes(name);
  report.p99_ratio_to_idle = Object.fromEntries(
    phases.map((name) => [name, Math.round((report.control[name].p99_ms / report.idle_p99_ms) * 10) / 10]),
  );
  report.p99_within_target = Object.fromEntries(phases.map((name) => [name, report.p99_ratio_to_idle[name] <= P99_TARGET_FACTOR]));
  const probePhases = ['subscriptions', 'backlog'].filter(ran);
  report.probe_ratio_to_idle = Object.fromEntries(
    probePhases.map((name) => [
      name,
      {
        p50: Math.round((report.probe[name].p50_ms / report.probe.idle.p50_ms) * 10) / 10,
        p90: Math.round((report.probe[name].p90_ms / report.probe.idle.p90_ms) * 10) / 10,
        p99: Math.round((report.probe[name].p99_ms / report.probe.idle.p99_ms) * 10) / 10,
      },
    ]),
  );
  console.log(JSON.stringify(report, null, 2));

  expect(report.attack_5xx).toEqual([]);
  expect(report.control_5xx).toBe(0);
  expect(report.control_non_200).toBe(0);
  for (const name of ['idle', ...phases]) expect(report.control[name].samples).toBeGreaterThan(20);
  for (const name of ['idle', ...probePhases]) expect(report.probe[name].samples).toBeGreaterThan(20);
  expect(Number.isFinite(report.idle_p99_ms)).toBe(true);
  for (const name of phases) expect(report.control[name].p99_ms).toBeLessThanOrEqual(P99_STALL_FACTOR * report.idle_p99_ms);
  // No phase grew the process far beyond its idle footprint.
  for (const name of phases) expect(report.rss_mb_max[name]).toBeLessThanOrEqual(report.rss_mb_max.idle + RSS_GROWTH_MB);
  if (ran('registrations')) {
    // At most ten per address per hour got through (eight addresses).
    expect(report.attack_statuses.registrations['201'] ?? 0).toBeLessThanOrEqual(80);
  }
  if (ran('cache-busting')) {
    // The ten free keys of one address were served no more than that address's bucket holds (default
    // RATE_FREE_PER_IP_PER_SECOND 10 and burst 20), cache hits included; the read cache kept its bounds.
    expect(report.attack_statuses['cache-busting']['200'] ?? 0).toBeLessThanOrEqual(20 + Math.ceil(10 * report.cache_busting_seconds));
    expect(report.read_cache.entries).toBeLessThanOrEqual(5_000);
    expect(report.read_cache.bytes).toBeLessThanOrEqual(64 * 1024 * 1024);
  }
  if (ran('webhooks')) {
    // The webhook flood did not stop the control account's deliveries.
    expect(report.webhooks.control_deliveries_during).toBeGreaterThan(0);
  }
  if (ran('lockout')) {
    // Every request of a valid key never used before and every web sign-in was served; the made-up
    // keys got 401 or, past their address's or network's limit, 429.
    expect(report.lockout.valid_requests).toBeGreaterThan(20);
    expect(report.lockout.valid_served).toBe(report.lockout.valid_requests);
    expect(Object.keys(report.attack_statuses.lockout)).toContain('401');
    for (const status of Object.keys(report.attack_statuses.lockout)) expect(['401', '429']).toContain(status);
  }
  if (ran('subscriptions')) {
    // At most 25 copy subscriptions per account, the rest 409; the other account's reads kept
    // answering, within the stall bound of their idle percentiles.
    const copyStatuses = report.attack_statuses['subscriptions-setup'];
    expect(copyStatuses['201'] ?? 0).toBeLessThanOrEqual(25 * report.subscriptions.accounts);
    expect(copyStatuses['409'] ?? 0).toBeGreaterThanOrEqual(5 * report.subscriptions.accounts);
    expect(report.probe_non_200).toBe(0);
    for (const name of probePhases) {
      expect(report.probe[name].p50_ms).toBeLessThanOrEqual(stallBound(report.probe.idle.p50_ms));
      expect(report.probe[name].p90_ms).toBeLessThanOrEqual(stallBound(report.probe.idle.p90_ms, P90_STALL_FLOOR_MS));
    }
  }
  if (ran('backlog')) {
    // No subscription holds more than its backlog; test events past it were refused and counted, with
    // the copy events that did not fit.
    expect(report.backlog.pending_max).toBeLessThanOrEqual(report.backlog.cap);
    expect(report.backlog.test_events_queued + report.backlog.test_events_refused).toBe(report.backlog.test_events);
    expect(report.backlog.test_events_refused).toBeGreaterThan(0);
    expect(report.backlog.dropped_events).toBeGreaterThanOrEqual(report.backlog.test_events_refused);
  }
  if (ran('crafted-input')) {
    // Every crafted cursor and every number spelled to slip past a type check was a 400 (issue 59, low).
    expect(report.crafted_input.requests).toBe(report.crafted_input.cursors + report.crafted_input.numbers);
    expect(report.crafted_input.not_400).toEqual([]);
  }
  if (ran('registration-spread')) {
    // One /24 registered no more than five addresses' allowance (REGISTRATIONS_PER_IP_PER_HOUR 10), the
    // rest refused, and the service-wide cap was left for an address of another network.
    expect(report.registration_spread.registered).toBeGreaterThan(0);
    expect(report.registration_spread.registered).toBeLessThanOrEqual(10 * 5);
    for (const status of Object.keys(report.attack_statuses['registration-spread'])) expect(['201', '429']).toContain(status);
    expect(report.registration_spread.other_network_status).toBe(201);
  }
  if (ran('paper-liquidity')) {
    // The agent's orders together asked for more than the best level held, and per book and price
    // they filled no more than the book offered.
    // The first refusal's body is compared too, so a failure says why an order was refused.
    expect({ statuses: report.attack_statuses['paper-liquidity'], first_refusal: report.paper_liquidity.first_refusal }).toEqual({
      statuses: { '201': report.paper_liquidity.orders },
      first_refusal: null,
    });
    expect(report.paper_liquidity.asked_over_best_level).toBe(true);
    expect(report.paper_liquidity.orders_on_a_known_book).toBeGreaterThanOrEqual(2);
    expect(report.paper_liquidity.over_taken).toEqual([]);
  }
  if (ran('streams')) {
    // One key's 50 WebSockets at once: STREAM_CONNECTIONS_PER_KEY (10) served, the rest 429.
    expect(report.attack_statuses['streams-flood']).toEqual({ '101': 10, '429': report.streams.flood_connections - 10 });
    // Every stalled key held its 10 connections, and the stalled readers were dropped (slow_consumer)
    // rather than buffered without bound (the RSS bound above holds them to their send buffers).
    expect(report.streams.stalled_connections).toBe(100);
    expect(report.streams.slow_consumers_dropped).toBeGreaterThan(0);
    // 300 subscriptions replaying from the log's start share the process's STREAM_REPLAY_CONCURRENCY (4)
    // slots, as /metrics shows them (NaN, and so a failure, when the gauges are missing).
    expect(report.streams.replays_running_max).toBeLessThanOrEqual(4);
    expect(report.streams.replays_waiting_max).toBeGreaterThanOrEqual(0);
    // The control subscriber on another key kept receiving live trades, and was never told an error.
    expect(report.streams.control_errors).toEqual([]);
    expect(report.streams.control_trades_after_floods).toBeGreaterThan(0);
  }
  // 180 s in CI with the free keys' shared address bucket; 397-1,500 s before it, when the cache-busting
  // flood served thousands of uncached pages and was most of the run.
}, 1_500_000);
