/** Failures logged by state change: one line when a run of failures starts, one when it ends. */
import { Writable } from 'node:stream';
import pino from 'pino';
import { failureLog } from '../../services/ingest/failure-log.js';
import { UpstreamError } from '../../services/ingest/upstream-client.js';

function capture() {
  const lines: Array<{ level: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

const unreachable = () => Object.assign(new Error('gamma http://127.0.0.1:9/markets: fetch failed (ECONNREFUSED)'), {});

test('repeats of one failure are one warning line; a new reason is another; recovery is one info line', async () => {
  const { lines, logger } = capture();
  const log = failureLog(logger);
  for (let i = 0; i < 10; i++) log.failed('markets poll', unreachable(), 'check the network');
  log.failed('markets poll', Object.assign(new Error('bad'), { status: 503 }));
  log.succeeded('markets poll');
  log.succeeded('markets poll');
  await new Promise((resolve) => setImmediate(resolve));
  expect(lines.map((l) => [l.level, l.msg])).toEqual([
    [40, 'markets poll failed: upstream unreachable; check the network (repeats are logged at debug level until it recovers)'],
    [40, 'markets poll failed: upstream answered HTTP 503 (repeats are logged at debug level until it recovers)'],
    [30, 'markets poll recovered'],
  ]);
  expect(lines.every((l) => !('err' in l))).toBe(true);
});

test('a failure to reach upstream at all stays at debug level (upstream-reachability.ts tells it once per upstream)', async () => {
  const { lines, logger } = capture();
  const log = failureLog(logger);
  const refused = new UpstreamError('gamma http://127.0.0.1:9/markets: fetch failed (ECONNREFUSED)', null, true, 'ECONNREFUSED');
  for (let i = 0; i < 5; i++) log.failed('catalog sync', refused, 'check the network');
  log.succeeded('catalog sync');
  log.failed('catalog sync', Object.assign(new Error('bad'), { status: 503 }));
  await new Promise((resolve) => setImmediate(resolve));
  expect(lines.map((l) => [l.level, l.msg])).toEqual([
    [40, 'catalog sync failed: upstream answered HTTP 503 (repeats are logged at debug level until it recovers)'],
  ]);
});
