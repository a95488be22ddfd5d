/**
 * The book of one token at an instant, rebuilt from a stored snapshot and the level changes after it.
 *
 * Deltas set a level's resting size (0 removes it), so applying them is replacement, never
 * arithmetic: sizes and prices come out exactly as upstream printed them. Deltas of one instant
 * are applied as one group (their order inside a websocket frame is not stored), and events at the
 * anchor snapshot's own instant are taken as part of that snapshot.
 *
 * A capture gap is known in two ways, both from stored data alone:
 * - lost message: after a group, the replayed best bid/ask differ from the best bid/ask upstream
 *   printed with the group (the check the ingestor makes before resyncing from REST). The book is
 *   unknown from the previous event until the next snapshot; its deltas are not applied.
 * - capture down (service stopped, websocket lost or paused): the next snapshot differs from the
 *   book replayed up to it. Which change was missed cannot be told, so the gap spans the whole
 *   replay, from the snapshot it started at to that next snapshot.
 * A quiet outage in which the book did not change is not a gap of the book: the replay is right.
 */

interface Level {
  price: number;
  size: number;
}

export interface StoredSnapshot {
  tsMs: number;
  hash: string;
  bids: Level[];
  asks: Level[];
}

export interface StoredDelta {
  tsMs: number;
  side: 'bid' | 'ask';
  price: number;
  size: number;
  hash: string;
  bestBid: number | null;
  bestAsk: number | null;
}

interface Gap {
  fromMs: number;
  /** The next snapshot's instant; null when none is stored yet (the book stays unknown). */
  toMs: number | null;
}

export interface ReplayInput {
  atMs: number;
  /** The last snapshot at or before `atMs`. */
  anchor: StoredSnapshot;
  /** Deltas after the anchor's instant up to the next snapshot's (or `atMs`), in (instant, id) order. */
  deltas: StoredDelta[];
  /** The first snapshot after `atMs` (the latest one stored at its instant), when known within the bound. */
  next: StoredSnapshot | null;
}

export interface ReplayedBook {
  /** Best first: bids highest, asks lowest. */
  bids: Level[];
  asks: Level[];
  asOfMs: number;
  snapshotAtMs: number;
  deltasApplied: number;
  /** Upstream's hash of the returned state; null when it cannot be told from stored data. */
  hash: string | null;
  gaps: Gap[];
}

type Side = Map<number, number>;

const toMap = (levels: Level[]): Side => new Map(levels.filter((l) => l.size > 0).map((l) => [l.price, l.size]));

const bestFirst = (levels: Side, side: 'bid' | 'ask'): Level[] =>
  [...levels.entries()]
    .map(([price, size]) => ({ price, size }))
    .sort(side === 'bid' ? (a, b) => b.price - a.price : (a, b) => a.price - b.price);

function best(levels: Side, side: 'bid' | 'ask'): number | null {
  let value: number | null = null;
  for (const price of levels.keys()) if (value === null || (side === 'bid' ? price > value : price < value)) value = price;
  return value;
}

const samePrice = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) < 1e-9);

/** Upstream prints best_bid 0 / best_ask 1 for an empty side; the 2024 flat form prints neither (nothing to check). */
function agrees(bids: Side, asks: Side, group: StoredDelta[]): boolean {
  const printed = group.filter((d) => d.bestBid !== null || d.bestAsk !== null);
  if (printed.length === 0) return true;
  return printed.some((d) => {
    const ourBid = best(bids, 'bid') ?? (d.bestBid === 0 ? 0 : null);
    const ourAsk = best(asks, 'ask') ?? (d.bestAsk === 1 ? 1 : null);
    return samePrice(ourBid, d.bestBid) && samePrice(ourAsk, d.bestAsk);
  });
}

function sameLevels(a: Side, b: Side): boolean {
  if (a.size !== b.size) return false;
  for (const [price, size] of a) if (b.get(price) !== size) return false;
  return true;
}

function groupHash(group: StoredDelta[]): string | null {
  const hashes = new Set(group.map((d) => d.hash));
  const [only] = hashes;
  return hashes.size === 1 && only ? only : null;
}

export function replayBook(input: ReplayInput): ReplayedBook {
  const { atMs, anchor, next } = input;
  const bids = toMap(anchor.bids);
  const asks = toMap(anchor.asks);
  let asOfMs = anchor.tsMs;
  let hash: string | null = anchor.hash;
  let deltasApplied = 0;
  const gaps: Gap[] = [];
  // The state returned is the book at `atMs`; groups after it only verify it up to the next snapshot.
  let result: ReplayedBook | null = null;
  const freeze = (): ReplayedBook => ({
    bids: bestFirst(bids, 'bid'),
    asks: bestFirst(asks, 'ask'),
    asOfMs,
    snapshotAtMs: anchor.tsMs,
    deltasApplied,
    hash,
    gaps,
  });

  const deltas = input.deltas;
  for (let i = 0; i < deltas.length; ) {
    const tsMs = deltas[i]!.tsMs;
    if (next && tsMs > next.tsMs) break;
    let j = i;
    while (j < deltas.length && deltas[j]!.tsMs === tsMs) j++;
    const group = deltas.slice(i, j);
    i = j;
    if (tsMs > atMs && !result) result = freeze();
    const undo: Array<[Side, number, number | undefined]> = [];
    for (const d of group) {
      const levels = d.side === 'bid' ? bids : asks;
      undo.push([levels, d.price, levels.get(d.price)]);
      if (d.size === 0) levels.delete(d.price);
      else levels.set(d.price, d.size);
    }
    if (!agrees(bids, asks, group)) {
      for (const [levels, price, size] of undo.reverse()) {
        if (size === undefined) levels.delete(price);
        else levels.set(price, size);
      }
      if (asOfMs <= atMs) gaps.push({ fromMs: asOfMs, toMs: next?.tsMs ?? null });
      return result ?? freeze();
    }
    asOfMs = tsMs;
    if (!result) {
      deltasApplied += group.length;
      hash = groupHash(group);
    }
  }
  const atBook = result ?? freeze();
  if (next && !(sameLevels(bids, toMap(next.bids)) && sameLevels(asks, toMap(next.asks)))) {
    gaps.push({ fromMs: anchor.tsMs, toMs: next.tsMs });
  }
  return atBook;
}
