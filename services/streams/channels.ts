/**
 * The channels a stream can carry: which streams of the log each reads, its filters, the tier it
 * needs (as its REST equivalent), and how a decoded event becomes the message's `data` (null when the
 * filters drop it). Adding a channel is one entry here and its schemas in api/openapi.yaml.
 */
import type { StreamSubscribed } from '../../api/types.generated.js';
import type { Access } from '../access/tiers.js';
import type { Stream } from '../events/stream.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { fillsChannel } from './fills-channel.js';
import { lifecycleChannel } from './lifecycle-channel.js';
import { tradesChannel } from './trades-channel.js';

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

export const CHANNELS: Record<string, Channel> = {
  trades: tradesChannel as Channel,
  fills: fillsChannel as Channel,
  lifecycle: lifecycleChannel as Channel,
};

/** The channel names of the API document (StreamSubscribed.channel). */
export type ChannelName = StreamSubscribed['channel'];

export function channelNames(): string[] {
  return Object.keys(CHANNELS);
}

export function channelNamed(name: unknown): Channel | undefined {
  return typeof name === 'string' && Object.hasOwn(CHANNELS, name) ? CHANNELS[name] : undefined;
}
