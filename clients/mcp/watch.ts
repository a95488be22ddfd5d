/**
 * Bounded watch tools over the live streams. An MCP tool call is one request and one result, so an
 * unbounded subscription cannot be a tool; a bounded one can: collect at most `max_messages` or for
 * at most `max_seconds`, return them with the stream's `cursor`, and the next call passes that cursor
 * to go on where this one stopped (the service replays from it: no gap, no duplicate between calls).
 * The filters and the cursor are the event-stream operation's parameters (STREAMS, generated from
 * the API document), so the tool changes when the document does; the stream itself is the
 * TypeScript SDK's (resume, typed errors).
 */
import { STREAMS, type StreamSpec } from '../ts/src/api.generated.js';
import type { StreamChannel, TapelineClient } from '../ts/src/index.js';

/**
 * Each watch tool: the event-stream route it reads and the channel it fixes. Not `prices` and `book`:
 * their ticks and level changes come many a second and a book is state to apply changes to, which
 * suits a program (the SDKs' stream), not a model reading a tool result.
 */
// `access` is the channel's own tier (the route's x-access is its lowest channel's); watch.unit.test.ts
// holds it to the service's channel.
export const WATCH_TOOLS = {
  watch_trades: { route: 'GET /stream/sse', channel: 'trades', access: 'tier2' },
  watch_fills: { route: 'GET /stream/sse', channel: 'fills', access: 'tier2' },
  watch_lifecycle: { route: 'GET /stream/sse', channel: 'lifecycle', access: 'tier1' },
  watch_signals: { route: 'GET /stream/sse', channel: 'signals', access: 'tier2' },
  watch_copy_events: { route: 'GET /stream/sse', channel: 'copy', access: 'tier2' },
  watch_strategy_signals: { route: 'GET /stream/sse', channel: 'strategy', access: 'tier2' },
} as const satisfies Record<string, { route: string; channel: StreamChannel; access: 'tier1' | 'tier2' }>;

type WatchToolName = keyof typeof WATCH_TOOLS;
type WatchChannel = (typeof WATCH_TOOLS)[WatchToolName]['channel'];

/** Bounds of one call: an MCP host waits for the result (commonly up to 60 s). */
const MAX_MESSAGES = 500;
const MAX_SECONDS = 30;
const DEFAULT_MESSAGES = 50;
const DEFAULT_SECONDS = 10;

export interface WatchToolDefinition {
  name: WatchToolName;
  channel: WatchChannel;
  stream: StreamSpec;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required: string[]; additionalProperties: false };
}

/** The watch tools whose stream operation exists in `streams`. */
export function watchToolsFor(streams: Readonly<Record<string, StreamSpec>> = STREAMS): WatchToolDefinition[] {
  const byRoute = new Map(Object.values(streams).map((spec) => [`GET ${spec.path}`, spec]));
  const tools: WatchToolDefinition[] = [];
  for (const [name, { route, channel, access }] of Object.entries(WATCH_TOOLS) as Array<
    [WatchToolName, (typeof WATCH_TOOLS)[WatchToolName]]
  >) {
    const stream = byRoute.get(route);
    if (!stream) continue;
    const properties: Record<string, unknown> = {};
    // The channel is the tool's; headers (Last-Event-ID) are the transport's, and `cursor` says the same.
    for (const parameter of stream.parameters) {
      if (parameter.in !== 'query' || parameter.name === 'channel') continue;
      // Another channel's filter would only earn the caller a 400 naming it.
      if (parameter.channels && !parameter.channels.includes(channel)) continue;
      properties[parameter.name] = { ...parameter.schema, ...(parameter.description ? { description: parameter.description } : {}) };
    }
    properties.max_messages = {
      type: 'integer',
      minimum: 1,
      maximum: MAX_MESSAGES,
      default: DEFAULT_MESSAGES,
      description: `Return once this many messages arrived (default ${DEFAULT_MESSAGES}).`,
    };
    properties.max_seconds = {
      type: 'number',
      minimum: 0,
      maximum: MAX_SECONDS,
      default: DEFAULT_SECONDS,
      description: `Return after this many seconds with what arrived, possibly nothing (default ${DEFAULT_SECONDS}).`,
    };
    tools.push({
      name,
      channel,
      stream,
      description: [
        `Collects ${channel} messages from the live stream (${stream.summary})`,
        'Without `cursor` it starts now (live only); with the `cursor` of a previous call it replays from there, so successive calls see every message once, in order per market.',
        `Returns {data: the messages' data, cursor} once \`max_messages\` arrived or \`max_seconds\` passed; pass \`cursor\` to the next call.`,
        'An expired cursor (CURSOR_EXPIRED) means: read the REST history instead, then watch without a cursor.',
        access === 'tier2' ? 'Needs Tier 2 (platform tokens or credits).' : '',
        'Units: `*_usdc` amounts in USDC, prices per share from 0 to 1, times ISO 8601 UTC.',
      ]
        .filter(Boolean)
        .join(' '),
      inputSchema: { type: 'object', properties, required: [], additionalProperties: false },
    });
  }
  return tools;
}

export interface WatchResult {
  data: unknown[];
  /** Where the next call goes on (null only when the stream never started). */
  cursor: string | null;
}

/** Runs one bounded watch; throws the SDK's TapelineStreamError / TapelineConnectionError. */
export async function runWatch(client: TapelineClient, tool: WatchToolDefinition, args: Record<string, unknown>): Promise<WatchResult> {
  const { cursor, max_messages, max_seconds, ...filters } = args;
  const limit = Math.min(MAX_MESSAGES, Math.max(1, Math.floor(Number(max_messages ?? DEFAULT_MESSAGES))));
  const seconds = Math.min(MAX_SECONDS, Math.max(0, Number(max_seconds ?? DEFAULT_SECONDS)));
  const stream = client.stream({
    channel: tool.channel,
    filters: filters as never,
    ...(typeof cursor === 'string' && cursor !== '' ? { cursor } : {}),
    signal: AbortSignal.timeout(seconds * 1000),
    // One call is short: a few reconnects, then the error goes back to the caller.
    reconnect: { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 2_000 },
  });
  const data: unknown[] = [];
  if (limit > 0)
    for await (const message of stream) {
      data.push(message.data);
      if (data.length >= limit) break;
    }
  return { data, cursor: stream.cursor ?? (typeof cursor === 'string' ? cursor : null) };
}

const money = (value: unknown) => (typeof value === 'number' ? `$${Math.round(value).toLocaleString('en-US')}` : String(value));
const price = (value: unknown) => (typeof value === 'number' ? value.toFixed(3) : 'n/a');

/** One message's data in a few words, per channel (the fields are the channel's message schema's). */
const LINES: Record<WatchChannel, (row: Record<string, any>) => string> = {
  trades: (t) => `${t.side} ${t.outcome} ${money(t.size_usdc)} @ ${price(t.price)} in ${t.market_title}`,
  fills: (t) => `${t.role} ${t.side} ${t.outcome} ${money(t.size_usdc)} @ ${price(t.price)} in ${t.market_title}`,
  lifecycle: (e) => `${e.transition?.kind} ${e.market_title}`,
  signals: (e) => `${e.event} in ${e.market_title ?? e.market_id}`,
  copy: (e) =>
    e.event === 'copy.executed'
      ? `copy.executed ${e.side} ${e.outcome} ${money(e.child_size_usdc)} (${e.status})`
      : `risk.blocked ${e.reason} (leader ${money(e.leader_size_usdc)})`,
  strategy: (e) => `${e.strategy_name}: ${e.side} @ ${price(e.entry_price)} in ${e.market_title}`,
};

/** One line for hosts and models that read text first. */
export function summarizeWatch(result: WatchResult, channel: WatchChannel): string {
  const rows = result.data as Array<Record<string, unknown>>;
  const top = rows.slice(-3).map(LINES[channel]).join('; ');
  const next = result.cursor ? ` Next call: cursor="${result.cursor}".` : '';
  return `${rows.length} message${rows.length === 1 ? '' : 's'}${top ? ` (latest: ${top})` : ''}.${next}`;
}
