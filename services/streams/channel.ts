/**
 * What a channel is, apart from the list of channels (channels.ts), so channel modules and the
 * list that imports them do not import each other.
 */
import type { Access } from '../access/tiers.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { EventLog } from '../ports/event-log.js';
import type { Positions } from './cursor.js';

/** What a channel reads: a topic (named in cursors), its partitions, and how its records decode. */
export interface ChannelStream {
  readonly topic: string;
  readonly partitions: number;
  readonly codec: { decode(value: Buffer): unknown };
}

/**
 * Where a channel's records are: the event log (market data, every subscriber reads the same), or
 * the account's own feed in the control store (services/copy/account-events.ts: the `copy` and
 * `strategy` channels, each subscriber reading only its account's rows).
 */
type ChannelSource = 'log' | 'account';

export interface Channel<F = unknown> {
  name: string;
  access: Access;
  /** The filters it takes (SSE query parameters, WebSocket `filters` members); others are a 400. */
  filters: readonly string[];
  /** Where a client resyncs from when its cursor expired (the REST equivalent). */
  resyncFrom: string;
  streams: readonly ChannelStream[];
  /** Default 'log'. */
  source?: ChannelSource;
  /**
   * Checks and normalises the filters; throws ApiError 400 naming `${prefix}<filter>` (404 for an
   * unknown market slug). `prefix` is '' for SSE query parameters, 'filters.' for WebSocket messages.
   */
  parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore): Promise<F>;
  /** The partition key every wanted record has (the market), so only its partition is read; undefined: all. */
  partitionKey(filters: F): string | undefined;
  /** The message an event of `stream` makes, or null when the filters drop it. */
  select(stream: ChannelStream, event: unknown, filters: F): ChannelMessage | null;
  /**
   * Optional: the messages a subscription without a cursor gets before its live ones (a state to
   * apply the live messages to), where its read of the log starts instead of the log's end, and the
   * filters `select` then gets, so nothing between the two is lost or sent twice.
   */
  initial?(filters: F, context: InitialContext): Promise<InitialMessages<F>>;
}

export interface InitialContext {
  store: AnalyticsStore;
  log: EventLog;
  /** The log's ends for every topic of the channel when the subscription opened (the default start). */
  ends: Positions;
}

export interface InitialMessages<F> {
  messages: ChannelMessage[];
  positions: Positions;
  filters: F;
}

/**
 * A message of a channel, without what the subscription adds (its id, the channel, the cursor): the
 * type (`trade` for the trades channel's data; the fills channel also sends `fill_retracted`), the
 * data, and any fields of the message's own (a fill's `block_hash`).
 */
export interface ChannelMessage {
  type: string;
  data: unknown;
  [field: string]: unknown;
}
