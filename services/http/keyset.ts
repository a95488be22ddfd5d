/**
 * Keyset pagination, written once: read `limit + 1` rows after the cursor's key, serve `limit`, and
 * when there was one more, hand out a cursor holding the last served row's key. The cursor is bound
 * to the query's filters (api/cursor.ts), so it cannot be replayed against another query.
 */
import type { Request } from 'express';
import { type CursorKey, type CursorPart, decodeCursor, encodeCursor, queryFingerprint } from './cursor.js';
import { type Pagination, page } from './envelope.js';

export interface KeysetOptions<Row, Out> {
  /** Filters the cursor is bound to (limit and cursor are not among them). */
  filters: Record<string, unknown>;
  /** Types of the sort key's parts, checked when a cursor comes back. */
  shape: CursorPart[];
  defaultLimit?: number;
  /** Rows after `after` (from the start when null), in page order, at most `take`. */
  fetch: (after: CursorKey | null, take: number) => Promise<Row[]>;
  /** The sort key of a served row (`index` within this page; `after` = the key this page started after). */
  keyOf: (row: Row, index: number, after: CursorKey | null) => CursorKey;
  present: (row: Row, index: number, after: CursorKey | null) => Out;
}

export interface KeysetPage<Out> {
  success: true;
  data: Out[];
  pagination: Pagination;
}

export async function keysetPage<Row, Out>(request: Request, options: KeysetOptions<Row, Out>): Promise<KeysetPage<Out>> {
  const limit = Number(request.query.limit ?? options.defaultLimit ?? 50);
  const fingerprint = queryFingerprint(options.filters);
  const after = request.query.cursor ? decodeCursor(String(request.query.cursor), fingerprint, options.shape) : null;
  const rows = await options.fetch(after, limit + 1);
  const hasMore = rows.length > limit;
  const served = rows.slice(0, limit);
  const last = served.at(-1);
  return page(
    served.map((row, index) => options.present(row, index, after)),
    {
      limit,
      has_more: hasMore,
      next_cursor: hasMore && last !== undefined ? encodeCursor(options.keyOf(last, served.length - 1, after), fingerprint) : null,
    },
  );
}
