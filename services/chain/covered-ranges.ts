/**
 * How ranges read whole below the follower's first block (a chain backfill, the in-service history
 * fill) join its contiguous coverage.
 */

/** A block range read whole (by a backfill or the history fill) below the follower's first block, not joined to it yet. */
export interface CoveredRange {
  from_block: number;
  to_block: number;
  /** Time of from_block (ms); absent when the backfill's checkpoint did not keep it (then read from the node). */
  from_time_ms?: number;
}

/** The follower checkpoint's coverage fields (follower.ts FollowerCheckpoint). */
export interface Coverage {
  first_block: number;
  first_time_ms?: number;
  covered_below?: CoveredRange[];
}

/**
 * The follower's contiguous coverage after a range read whole: a range reaching the first block (or
 * the block before it) moves it down, and so does every range kept below that the move now reaches; a
 * range below a hole is kept (covered_below) until a later range fills the hole, and a range inside
 * the coverage adds nothing.
 */
export function extendCoverage(
  follower: Coverage,
  range: CoveredRange,
): Required<Pick<Coverage, 'first_block' | 'covered_below'>> & Coverage {
  let first = follower.first_block;
  let firstTime = follower.first_time_ms;
  // Highest first: each join can only make the next lower range reach.
  let rest = [...(follower.covered_below ?? []), range].sort((a, b) => b.to_block - a.to_block);
  for (let joined = true; joined; ) {
    joined = false;
    const below: CoveredRange[] = [];
    for (const r of rest) {
      if (r.from_block >= first) continue;
      if (r.to_block >= first - 1) {
        first = r.from_block;
        firstTime = r.from_time_ms;
        joined = true;
      } else below.push(r);
    }
    rest = below;
  }
  return {
    first_block: first,
    // Undefined when the range's time was not kept: the follower then reads it from the node.
    first_time_ms: firstTime,
    covered_below: rest.sort((a, b) => a.from_block - b.from_block),
  };
}

/** The range a finished bounded follower read: from its first block to its last. */
export function rangeRead(done: { first_block: number; next_block: number; first_time_ms?: number }): CoveredRange {
  return { from_block: done.first_block, to_block: done.next_block - 1, from_time_ms: done.first_time_ms };
}
