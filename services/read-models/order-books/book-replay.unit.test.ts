import { replayBook, type StoredDelta, type StoredSnapshot } from './book-replay.js';

const snapshot = (tsMs: number, bids: [number, number][], asks: [number, number][], hash = `s${tsMs}`): StoredSnapshot => ({
  tsMs,
  hash,
  bids: bids.map(([price, size]) => ({ price, size })),
  asks: asks.map(([price, size]) => ({ price, size })),
});
const delta = (
  tsMs: number,
  side: 'bid' | 'ask',
  price: number,
  size: number,
  bestBid: number | null,
  bestAsk: number | null,
  hash = `d${tsMs}`,
): StoredDelta => ({
  tsMs,
  side,
  price,
  size,
  hash,
  bestBid,
  bestAsk,
});

const anchor = snapshot(
  1000,
  [
    [0.4, 10],
    [0.39, 5],
  ],
  [[0.6, 7]],
);

test('applies the deltas up to at, best first; as_of, hash and count follow the last group applied', () => {
  const book = replayBook({
    atMs: 3000,
    anchor,
    deltas: [delta(2000, 'bid', 0.41, 3, 0.41, 0.6), delta(3000, 'bid', 0.4, 0, 0.41, 0.6), delta(4000, 'ask', 0.6, 0, 0.41, 1)],
    next: null,
  });
  expect(book.bids).toEqual([
    { price: 0.41, size: 3 },
    { price: 0.39, size: 5 },
  ]);
  expect(book.asks).toEqual([{ price: 0.6, size: 7 }]);
  expect(book).toMatchObject({ asOfMs: 3000, snapshotAtMs: 1000, deltasApplied: 2, hash: 'd3000', gaps: [] });
});

test('no delta applied: the snapshot itself with its hash', () => {
  expect(replayBook({ atMs: 1500, anchor, deltas: [], next: null })).toMatchObject({
    asOfMs: 1000,
    deltasApplied: 0,
    hash: 's1000',
    gaps: [],
  });
});

test('a group whose printed best disagrees is a lost message: the last known book, gap until the next snapshot', () => {
  const next = snapshot(5000, [[0.45, 1]], [[0.6, 7]]);
  const book = replayBook({
    atMs: 4500,
    anchor,
    deltas: [delta(2000, 'bid', 0.41, 3, 0.41, 0.6), delta(3000, 'bid', 0.38, 2, 0.45, 0.6), delta(4000, 'bid', 0.39, 0, 0.45, 0.6)],
    next,
  });
  expect(book.bids[0]).toEqual({ price: 0.41, size: 3 });
  expect(book.bids).toHaveLength(3);
  expect(book).toMatchObject({ asOfMs: 2000, deltasApplied: 1, gaps: [{ fromMs: 2000, toMs: 5000 }] });
});

test('the next snapshot not reproduced is a capture gap over the replay; one reproduced is none', () => {
  const deltas = [delta(2000, 'bid', 0.41, 3, 0.41, 0.6)];
  const reproduced = snapshot(
    6000,
    [
      [0.41, 3],
      [0.4, 10],
      [0.39, 5],
    ],
    [[0.6, 7]],
  );
  expect(replayBook({ atMs: 3000, anchor, deltas, next: reproduced }).gaps).toEqual([]);
  const changed = snapshot(
    6000,
    [
      [0.41, 3],
      [0.4, 10],
      [0.39, 4],
    ],
    [[0.6, 7]],
  );
  expect(replayBook({ atMs: 3000, anchor, deltas, next: changed }).gaps).toEqual([{ fromMs: 1000, toMs: 6000 }]);
});

test('a lost message found after at may have been lost before it: reported, the book at at kept', () => {
  const book = replayBook({
    atMs: 2500,
    anchor,
    deltas: [delta(2000, 'bid', 0.41, 3, 0.41, 0.6), delta(3000, 'bid', 0.39, 0, 0.5, 0.6)],
    next: snapshot(5000, [[0.5, 1]], [[0.6, 7]]),
  });
  expect(book).toMatchObject({ asOfMs: 2000, deltasApplied: 1, gaps: [{ fromMs: 2000, toMs: 5000 }] });
  // One found after a later event past at is not in the window.
  const later = replayBook({
    atMs: 2500,
    anchor,
    deltas: [delta(2000, 'bid', 0.41, 3, 0.41, 0.6), delta(2800, 'bid', 0.42, 1, 0.42, 0.6), delta(3000, 'bid', 0.39, 0, 0.5, 0.6)],
    next: snapshot(5000, [[0.5, 1]], [[0.6, 7]]),
  });
  expect(later).toMatchObject({ asOfMs: 2000, deltasApplied: 1, gaps: [] });
});

test('empty sides as upstream prints them (bid 0, ask 1) agree; deltas of one instant with different hashes leave hash null', () => {
  const book = replayBook({
    atMs: 2000,
    anchor: snapshot(1000, [[0.4, 1]], [[0.6, 1]]),
    deltas: [delta(2000, 'bid', 0.4, 0, 0, 1, 'a'), delta(2000, 'ask', 0.6, 0, 0, 1, 'b')],
    next: null,
  });
  expect(book).toMatchObject({ bids: [], asks: [], deltasApplied: 2, hash: null, gaps: [] });
});
