/** Admission to the analytics engine: lanes take turns, and per-lane and total waiting is bounded. */
import { FairQueue } from '../../services/analytics/fair-queue.js';
import { AnalyticsBusyError, AnalyticsClosedError, storeErrorKind } from '../../services/analytics/store-errors.js';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

test('the lane that used the engine least goes next: a busy lane waits behind lighter ones that came later', async () => {
  const queue = new FairQueue({ concurrency: 1, maxQueuedPerLane: 100, maxQueued: 1000, maxWaitMs: 60_000 });
  const order: string[] = [];
  const first = gate();
  const running = queue.run('busy', true, async () => {
    await first.opened;
    order.push('busy-0');
  });
  const busy = Array.from({ length: 5 }, (_, i) => queue.run('busy', true, async () => void order.push(`busy-${i + 1}`)));
  const other = queue.run('other', true, async () => void order.push('other'));
  const pipeline = queue.run('pipeline', false, async () => void order.push('pipeline'));
  first.open();
  await Promise.all([running, ...busy, other, pipeline]);
  expect(order.slice(0, 4)).toEqual(['busy-0', 'other', 'pipeline', 'busy-1']);
  expect(order).toHaveLength(8);
});

test('past its waiting limit a request lane is refused (429 kind); the pipeline lane is never refused', async () => {
  const queue = new FairQueue({ concurrency: 1, maxQueuedPerLane: 2, maxQueued: 3, maxWaitMs: 60_000 });
  const hold = gate();
  const running = queue.run('a', true, () => hold.opened);
  const waiting = [queue.run('a', true, async () => 1), queue.run('a', true, async () => 2)];
  const refused = queue.run('a', true, async () => 3);
  await expect(refused).rejects.toBeInstanceOf(AnalyticsBusyError);
  await expect(refused).rejects.toMatchObject({ reason: 'lane_full' });
  expect(storeErrorKind(await refused.catch((e) => e))).toBe('busy');
  // Another lane fits once, then the total is full.
  const b = queue.run('b', true, async () => 4);
  await expect(queue.run('c', true, async () => 5)).rejects.toMatchObject({ reason: 'queue_full' });
  const pipeline = queue.run('pipeline', false, async () => 6);
  hold.open();
  await running;
  expect(await Promise.all([...waiting, b, pipeline])).toEqual([1, 2, 4, 6]);
  expect(queue.stats()).toMatchObject({ running: 0, queued: 0, rejected: 2 });
});

test('a query that waits longer than maxWaitMs is refused as too slow (503 kind)', async () => {
  const queue = new FairQueue({ concurrency: 1, maxQueuedPerLane: 5, maxQueued: 5, maxWaitMs: 20 });
  const hold = gate();
  const running = queue.run('a', true, () => hold.opened);
  const late = queue.run('b', true, async () => 'never');
  await expect(late).rejects.toMatchObject({ reason: 'queue_timeout' });
  expect(storeErrorKind(await late.catch((e) => e))).toBe('too_slow');
  hold.open();
  await running;
  expect(queue.stats().queued).toBe(0);
});

test("a query that timed out beside its own lane's other work is the caller's 429; alone it is a 503", async () => {
  const queue = new FairQueue({ concurrency: 2, maxQueuedPerLane: 5, maxQueued: 5, maxWaitMs: 20 });
  const hold = gate();
  const runningB = queue.run('b', true, () => hold.opened);
  const runningA = queue.run('a', true, () => hold.opened);
  const besideOwn = queue.run('b', true, async () => 'b');
  const alone = queue.run('c', true, async () => 'c');
  await expect(besideOwn).rejects.toMatchObject({ reason: 'lane_full' });
  await expect(alone).rejects.toMatchObject({ reason: 'queue_timeout' });
  hold.open();
  await Promise.all([runningA, runningB]);
});

test("a burst's queries that time out are all the caller's 429, the last one too, alone by then", async () => {
  const queue = new FairQueue({ concurrency: 1, maxQueuedPerLane: 5, maxQueued: 10, maxWaitMs: 20 });
  const hold = gate();
  const running = queue.run('pipeline', false, () => hold.opened);
  const burst = Array.from({ length: 3 }, (_, i) => queue.run('burst', true, async () => i));
  const alone = queue.run('light', true, async () => 'light');
  for (const query of burst) await expect(query).rejects.toMatchObject({ reason: 'lane_full' });
  await expect(alone).rejects.toMatchObject({ reason: 'queue_timeout' });
  hold.open();
  await running;
});

test('closing refuses what waits and what comes later, and resolves only once the running statement ends', async () => {
  const queue = new FairQueue({ concurrency: 1, maxQueuedPerLane: 10, maxQueued: 100, maxWaitMs: 60_000 });
  const hold = gate();
  let ran = false;
  const running = queue.run('pipeline', false, async () => {
    await hold.opened;
    ran = true;
  });
  const waiting = queue.run('a', true, async () => 'never');
  const reason = new AnalyticsClosedError();
  let closed = false;
  const closing = queue.close(reason).then(() => {
    closed = true;
  });
  await expect(waiting).rejects.toBe(reason);
  await expect(queue.run('pipeline', false, async () => 'late')).rejects.toBe(reason);
  expect(storeErrorKind(reason)).toBe('unavailable');
  await new Promise((resolve) => setImmediate(resolve));
  expect(closed).toBe(false);
  hold.open();
  await Promise.all([running, closing]);
  expect(ran).toBe(true);
  expect(closed).toBe(true);
  expect(queue.stats()).toMatchObject({ running: 0, queued: 0 });
});

test("a waiting query whose caller has gone is dropped without running, and frees its lane's place", async () => {
  const queue = new FairQueue({ concurrency: 1, maxQueuedPerLane: 1, maxQueued: 5, maxWaitMs: 60_000 });
  const hold = gate();
  const ran: string[] = [];
  const running = queue.run('a', true, () => hold.opened);
  const caller = new AbortController();
  const waiting = queue.run('b', true, async () => void ran.push('gone'), caller.signal);
  // The lane's one place is taken: a second query of b is refused.
  await expect(queue.run('b', true, async () => 'x')).rejects.toMatchObject({ reason: 'lane_full' });
  caller.abort();
  await expect(waiting).rejects.toMatchObject({ reason: 'caller_gone' });
  expect(queue.stats()).toMatchObject({ queued: 0, lanes: 0, abandoned: 1 });
  // The place is free again, and a query sent after its caller left never queues.
  const next = queue.run('b', true, async () => void ran.push('next'));
  await expect(queue.run('c', true, async () => void ran.push('late'), caller.signal)).rejects.toMatchObject({ reason: 'caller_gone' });
  hold.open();
  await Promise.all([running, next]);
  expect(ran).toEqual(['next']);
  expect(queue.stats()).toMatchObject({ running: 0, queued: 0, abandoned: 2 });
  // A query that started before its caller left is not affected by a later abort.
  const later = new AbortController();
  const started = queue.run('d', true, async () => 'done', later.signal);
  later.abort();
  await expect(started).resolves.toBe('done');
});
