/** Reachability by state change: one line when an upstream cannot be reached, one when it answers again. */
import { Writable } from 'node:stream';
import pino from 'pino';
import { UpstreamError } from '../../services/ingest/upstream-client.js';
import {
  hostOf,
  TRANSIENT_FAILURES,
  UpstreamReachability,
  unreachableCode,
  upstreamOfSource,
} from '../../services/ingest/upstream-reachability.js';

function capture(level = 'info') {
  const lines: Array<Record<string, unknown> & { level: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: pino({ level }, stream) };
}

const refused = () => new UpstreamError('gamma http://127.0.0.1:9/gamma/markets: fetch failed (ECONNREFUSED)', null, true, 'ECONNREFUSED');
const flush = () => new Promise((resolve) => setImmediate(resolve));

test('the error code is found on the error or its causes; an answer (an HTTP status) is not unreachability', () => {
  expect(unreachableCode(refused())).toBe('ECONNREFUSED');
  // fetch and viem wrap the socket error: fetch failed -> cause { code }.
  const viemLike = Object.assign(new Error('HTTP request failed.'), {
    cause: Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND x'), { code: 'ENOTFOUND' }),
    }),
  });
  expect(unreachableCode(viemLike)).toBe('ENOTFOUND');
  expect(unreachableCode(Object.assign(new Error('aborted'), { name: 'TimeoutError' }))).toBe('ETIMEDOUT');
  expect(unreachableCode(new UpstreamError('gamma: HTTP 503', 503, true))).toBeNull();
  expect(unreachableCode(new Error('response is not JSON'))).toBeNull();
  expect(unreachableCode(Object.assign(new Error('rpc error'), { code: -32000 }))).toBeNull();
});

test('hosts never carry the path or query (keyed RPC URLs put keys there)', () => {
  expect(hostOf('https://lb.drpc.org/ogrpc?network=polygon&dkey=SECRET')).toBe('lb.drpc.org');
  expect(hostOf('https://user:pass@polygon-mainnet.g.alchemy.com/v2/SECRET')).toBe('polygon-mainnet.g.alchemy.com');
  expect(upstreamOfSource('gamma.catalog-sync')).toBe('gamma');
  expect(upstreamOfSource('clob.ws')).toBe('ws');
  expect(upstreamOfSource('clob.books')).toBe('clob');
  expect(upstreamOfSource('data.holders-oi')).toBe('data');
  expect(upstreamOfSource('chain.polygon')).toBe('rpc');
});

test('one warn line when an upstream becomes unreachable, repeats at debug, one line when it answers again', async () => {
  const { lines, logger } = capture();
  let now = Date.parse('2026-11-29T12:01:03.000Z');
  const reachability = new UpstreamReachability(logger, () => now);
  reachability.register('gamma', 'http://127.0.0.1:9/gamma');
  reachability.register('clob', 'https://clob.polymarket.com');
  expect(reachability.snapshot().map((u) => u.reachable)).toEqual([null, null]);

  for (let i = 0; i < 20; i++) expect(reachability.failed('gamma', refused())).toBe(true);
  // An HTTP error is an answer: told by the task that asked, not here.
  expect(reachability.failed('clob', new UpstreamError('clob: HTTP 503', 503, true))).toBe(false);
  const [gamma] = reachability.snapshot();
  expect(gamma).toEqual({
    upstream: 'gamma',
    host: '127.0.0.1:9',
    setting: 'POLYMARKET_GAMMA_URL',
    reachable: false,
    unreachable_since: '2026-11-29T12:01:03.000Z',
    error_code: 'ECONNREFUSED',
    failed_attempts: 20,
    cause:
      "Polymarket's Gamma API cannot be reached (ECONNREFUSED 127.0.0.1:9) since 2026-11-29T12:01:03.000Z; check the network and POLYMARKET_GAMMA_URL",
  });

  now += 42_000;
  reachability.succeeded('gamma');
  reachability.succeeded('gamma');
  reachability.succeeded('clob');
  await flush();
  expect(lines.map((l) => [l.level, l.msg])).toEqual([
    [
      40,
      "Polymarket's Gamma API cannot be reached at 127.0.0.1:9 (ECONNREFUSED): check the network, and POLYMARKET_GAMMA_URL if it is set; the service keeps retrying and serves what it has (repeats are logged at debug level)",
    ],
    [40, "Polymarket's Gamma API is reachable again after 42 s (20 failed attempts)"],
  ]);
  expect(lines.every((l) => !('err' in l))).toBe(true);
  expect(reachability.snapshot().map((u) => [u.upstream, u.reachable, u.cause])).toEqual([
    ['gamma', true, null],
    ['clob', true, null],
  ]);
});

test('the error details stay available at debug level', async () => {
  const { lines, logger } = capture('debug');
  const reachability = new UpstreamReachability(logger);
  reachability.register('data', 'https://data-api.polymarket.com');
  reachability.failed('data', refused());
  reachability.failed('data', refused());
  await flush();
  const debug = lines.filter((l) => l.level === 20);
  expect(debug).toHaveLength(2);
  expect(debug.every((l) => typeof (l.err as { message?: string })?.message === 'string')).toBe(true);
});

test('timeouts and resets count as unreachable only after TRANSIENT_FAILURES in a row, since the first of them', async () => {
  const { lines, logger } = capture();
  let now = Date.parse('2026-11-29T12:00:00.000Z');
  const reachability = new UpstreamReachability(logger, () => now);
  reachability.register('data', 'https://data-api.polymarket.com');
  const timedOut = () => new UpstreamError('data-api: timed out after 10000 ms', null, true, 'ETIMEDOUT');
  for (let i = 1; i < TRANSIENT_FAILURES; i++) expect(reachability.failed('data', timedOut())).toBe(true);
  expect(reachability.snapshot()[0]).toMatchObject({ reachable: null, cause: null });
  // An answer in between starts the count again.
  reachability.succeeded('data');
  for (let i = 1; i < TRANSIENT_FAILURES; i++) reachability.failed('data', timedOut());
  await flush();
  expect(lines).toEqual([]);
  now += 5_000;
  reachability.failed('data', timedOut());
  expect(reachability.snapshot()[0]).toMatchObject({
    reachable: false,
    error_code: 'ETIMEDOUT',
    failed_attempts: TRANSIENT_FAILURES,
    unreachable_since: '2026-11-29T12:00:00.000Z',
  });
  now += 1_000;
  reachability.succeeded('data');
  await flush();
  expect(lines.map((l) => l.msg)).toEqual([
    "Polymarket's Data API cannot be reached at data-api.polymarket.com (ETIMEDOUT): check the network, and POLYMARKET_DATA_URL if it is set; the service keeps retrying and serves what it has (repeats are logged at debug level)",
    `Polymarket's Data API is reachable again after 6 s (${TRANSIENT_FAILURES} failed attempts)`,
  ]);
});
