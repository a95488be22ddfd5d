/**
 * What a channel is, apart from the list of channels (channels.ts), so channel modules and the
 * list that imports them do not import each other.
 */
import type { Access } from '../access/tiers.js';
import type { Stream } from '../events/stream.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';

export interface Channel<F = unknown> {
  name: string;
  /** The `type` of its data messages. */
  messageType: string;
  access: Access;
  /** The filters it takes (SSE query parameters, WebSocket `filters` members); others are a 400. */
  filters: readonly string[];
  /** Where a client resyncs from when its cursor expired (the REST equivalent). */
  resyncFrom: string;
  streams: readonly Stream[];
  /**
   * Checks and normalises the filters; throws ApiError 400 naming `${prefix}<filter>` (404 for an
   * unknown market slug). `prefix` is '' for SSE query parameters, 'filters.' for WebSocket messages.
   */
  parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore): Promise<F>;
  /** The partition key every wanted record has (the market), so only its partition is read; undefined: all. */
  partitionKey(filters: F): string | undefined;
  /** The message data of an event of `stream`, or null when the filters drop it. */
  select(stream: Stream, event: unknown, filters: F): unknown | null;
}
