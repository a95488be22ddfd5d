/**
 * Which segments of a partition retention deletes, as Kafka's `retention.ms` and `retention.bytes`
 * (per partition) decide it, with one rule Kafka does not have: a segment a consumer group has not
 * committed past stays, whatever its age or the partition's size, until the partition is over the
 * hard byte cap. Only then does it go, and every group that had not read it is told how many records
 * it lost (counted, logged, shown in /v1/health). Segments go oldest first; the newest (taking
 * appends) never does.
 */
export interface RetentionPolicy {
  /** Segments last written longer ago than this may go (Kafka retention.ms); null keeps them. */
  retentionMs: number | null;
  /** While the partition holds more than this, its oldest segments may go (Kafka retention.bytes); null: no size bound. */
  retentionBytes: number | null;
  /** Over this, the oldest segments go even if a group has not read them; null: never. */
  hardCapBytes: number | null;
}

export interface SegmentFacts {
  baseOffset: number;
  /** One past the segment's last offset. */
  endOffset: number;
  bytes: number;
  lastWrittenMs: number;
}

export interface RetentionDecision {
  /** How many of the oldest segments go. */
  count: number;
  /** Records each group loses (had not committed past) because the hard cap forced them out. */
  lostByGroup: Map<string, number>;
}

/**
 * `segments` oldest first, the last one taking appends; `committed` the next offset each group
 * reading this partition will read.
 */
export function segmentsToDelete(
  segments: readonly SegmentFacts[],
  policy: RetentionPolicy,
  nowMs: number,
  committed: ReadonlyMap<string, number>,
): RetentionDecision {
  let total = segments.reduce((sum, s) => sum + s.bytes, 0);
  const floor = committed.size === 0 ? Number.POSITIVE_INFINITY : Math.min(...committed.values());
  const lostByGroup = new Map<string, number>();
  let count = 0;
  for (const segment of segments.slice(0, -1)) {
    const expired = policy.retentionMs !== null && nowMs - segment.lastWrittenMs > policy.retentionMs;
    const overBytes = policy.retentionBytes !== null && total > policy.retentionBytes;
    const overCap = policy.hardCapBytes !== null && total > policy.hardCapBytes;
    if (!expired && !overBytes && !overCap) break;
    const readByAll = floor >= segment.endOffset;
    if (!readByAll && !overCap) break;
    if (!readByAll) {
      for (const [group, next] of committed) {
        const lost = segment.endOffset - Math.max(segment.baseOffset, next);
        if (lost > 0) lostByGroup.set(group, (lostByGroup.get(group) ?? 0) + lost);
      }
    }
    count++;
    total -= segment.bytes;
  }
  return { count, lostByGroup };
}
