/**
 * What a projection's `unseen` needs for tables whose materialized views count every row they are
 * handed (read-model.ts): which events are stored already, and which of those were stored from the
 * very log position a record of this batch has (the leftovers of an insert that reached the table and
 * not all of its views). Such tables keep each row's position (log_partition, log_offset; -1 for rows
 * stored before they did).
 */
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { Positioned } from './read-model.js';

export interface StoredEvents<E> {
  table: string;
  /** The column an event's id is looked up by, and the event's id. */
  idColumn: string;
  id(event: E): string;
  /** What makes a stored row the same event: an SQL expression over the row, and its value for an event. */
  keyExpression: string;
  key(event: E): string;
  /** The table's time column and the event's time (milliseconds), so the lookup prunes to the parts that can hold them. */
  timeColumn: string;
  timeMs(event: E): number;
}

export async function splitStored<E>(
  store: AnalyticsStore,
  events: ReadonlyArray<Positioned<E>>,
  spec: StoredEvents<E>,
): Promise<{ fresh: E[]; replayed: E[] }> {
  // One event per key (the last one seen, as a row insert would keep), with every position it has here.
  const byKey = new Map<string, { event: E; at: Set<string> }>();
  for (const { event, at } of events) {
    const key = spec.key(event);
    const entry = byKey.get(key) ?? { event, at: new Set<string>() };
    entry.event = event;
    entry.at.add(`${at.partition}:${at.offset}`);
    byKey.set(key, entry);
  }
  if (byKey.size === 0) return { fresh: [], replayed: [] };
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const { event } of byKey.values()) {
    from = Math.min(from, spec.timeMs(event));
    to = Math.max(to, spec.timeMs(event));
  }
  const stored = await store.query<{ key: string; log_partition: number; log_offset: string }>(
    `SELECT ${spec.keyExpression} AS key, log_partition, toString(log_offset) AS log_offset FROM ${spec.table}
      WHERE ${spec.timeColumn} BETWEEN fromUnixTimestamp64Milli({from:Int64}) AND fromUnixTimestamp64Milli({to:Int64})
        AND ${spec.idColumn} IN {ids:Array(String)}`,
    { from, to, ids: [...new Set([...byKey.values()].map(({ event }) => spec.id(event)))] },
  );
  const storedAt = new Map<string, Set<string>>();
  for (const row of stored) {
    const at = storedAt.get(row.key) ?? new Set<string>();
    at.add(`${row.log_partition}:${row.log_offset}`);
    storedAt.set(row.key, at);
  }
  const fresh: E[] = [];
  const replayed: E[] = [];
  for (const [key, { event, at }] of byKey) {
    const rows = storedAt.get(key);
    if (!rows) fresh.push(event);
    else if ([...at].some((position) => rows.has(position))) replayed.push(event);
  }
  return { fresh, replayed };
}
