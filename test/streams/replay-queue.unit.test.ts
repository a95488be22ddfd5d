/**
 * services/streams/replay-queue.ts: the process-wide limit on runs of history, fair per key. Each run
 * here is held until the test releases it, so the order in which runs start is exactly what the
 * queue decided when a slot came free.
 */
import { ReplayQueue } from '../../services/streams/replay-queue.js';

/** A queue whose runs wait to be released; `starts` lists the keys in the order their runs started. */
function heldQueue(concurrency: number) {
  const queue = new ReplayQueue(concurrency);
  const starts: string[] = [];
  const going: Array<{ key: string; release: () => void }> = [];
  let peak = 0;
  const enqueue = (key: string): Promise<string> =>
    queue.run(key, () => {
      starts.push(key);
      peak = Math.max(peak, queue.active);
      return new Promise<string>((resolve) => going.push({ key, release: () => resolve(key) }));
    });
  /** Ends the oldest run going (or the oldest of `key`'s) and lets the queue start the next. */
  const releaseOne = async (key?: string) => {
    const index = key === undefined ? 0 : going.findIndex((run) => run.key === key);
    const [run] = going.splice(index, 1);
    run!.release();
    await settle();
  };
  const runningOf = (key: string) => going.filter((run) => run.key === key).length;
  /** Lets runs that a queue starts asynchronously start. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { queue, starts, enqueue, releaseOne, runningOf, settle, peak: () => peak, going: () => going.length };
}

test('with one slot, a key queued behind another key’s 20 runs starts within the next 2 slots (FIFO would make it wait for all 20)', async () => {
  const held = heldQueue(1);
  const done = Array.from({ length: 20 }, () => held.enqueue('A'));
  done.push(held.enqueue('B'));
  await held.settle();
  expect(held.starts).toEqual(['A']);
  expect(held.queue.pending).toBe(20);
  while (held.going() > 0) await held.releaseOne();
  expect(await Promise.all(done)).toHaveLength(21);
  // B's run is among the two runs that start after it queued.
  expect(held.starts.indexOf('B')).toBeGreaterThanOrEqual(1);
  expect(held.starts.indexOf('B')).toBeLessThanOrEqual(2);
  expect(held.starts.filter((key) => key === 'A')).toHaveLength(20);
  expect(held.peak()).toBe(1);
});

test('keys with runs waiting take one slot each in turn', async () => {
  const held = heldQueue(1);
  for (const key of ['A', 'B', 'C']) for (let i = 0; i < 5; i++) void held.enqueue(key);
  await held.settle();
  while (held.going() > 0) await held.releaseOne();
  expect(held.starts.join('')).toBe('ABCABCABCABCABC');
});

test('a key that queues its next run only when the last ended (one subscription replaying) gets its turn once per round', async () => {
  const held = heldQueue(1);
  for (let i = 0; i < 12; i++) {
    void held.enqueue('A');
    void held.enqueue('C');
  }
  let left = 4;
  const sequential = async (): Promise<void> => {
    await held.enqueue('B');
    if (--left > 0) return sequential();
  };
  const replay = sequential();
  await held.settle();
  while (held.going() > 0) await held.releaseOne();
  await replay;
  const positions = held.starts.flatMap((key, index) => (key === 'B' ? [index] : []));
  expect(positions).toHaveLength(4);
  // Between two of B's runs, A and C each had one: a third of the slots, not a half.
  const gaps = positions.slice(1).map((position, i) => position - positions[i]!);
  expect(gaps).toEqual([3, 3, 3]);
});

test('the slots stay capped over all keys, and a free slot goes to the key with the fewest runs going', async () => {
  const held = heldQueue(4);
  for (const key of ['A', 'B', 'C']) for (let i = 0; i < 10; i++) void held.enqueue(key);
  await held.settle();
  // A queued first and took every slot; as A's runs end, B and C get slots before A gets another.
  expect([held.runningOf('A'), held.runningOf('B'), held.runningOf('C')]).toEqual([4, 0, 0]);
  await held.releaseOne('A');
  await held.releaseOne('A');
  expect([held.runningOf('A'), held.runningOf('B'), held.runningOf('C')]).toEqual([2, 1, 1]);
  let checked = 0;
  while (held.going() > 0) {
    await held.releaseOne();
    // While every key has runs waiting, none holds more than its share (2 of 4 slots over 3 keys).
    const everyKeyWaits = ['A', 'B', 'C'].every((key) => held.starts.filter((started) => started === key).length < 10);
    if (!everyKeyWaits) continue;
    expect(Math.max(...['A', 'B', 'C'].map((key) => held.runningOf(key)))).toBeLessThanOrEqual(2);
    checked++;
  }
  expect(checked).toBeGreaterThan(10);
  expect(held.starts).toHaveLength(30);
  expect(held.peak()).toBe(4);
  expect([held.queue.active, held.queue.pending]).toEqual([0, 0]);
});

test('a run that fails rejects its caller and frees its slot; a task that throws is a failed run', async () => {
  const queue = new ReplayQueue(1);
  await expect(queue.run('A', () => Promise.reject(new Error('read failed')))).rejects.toThrow('read failed');
  await expect(
    queue.run('A', () => {
      throw new Error('thrown');
    }),
  ).rejects.toThrow('thrown');
  expect(await queue.run('B', () => 'next')).toBe('next');
  // The caller goes on first; the slot is given back right after.
  await new Promise((resolve) => setImmediate(resolve));
  expect([queue.active, queue.pending]).toEqual([0, 0]);
});

test('the limit is a positive integer', () => {
  expect(() => new ReplayQueue(0)).toThrow(RangeError);
  expect(() => new ReplayQueue(1.5)).toThrow(RangeError);
});
