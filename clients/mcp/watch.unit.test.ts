/**
 * The watch tools (watch_trades, and one per other channel a model can use): their inputs are the
 * event-stream operation's parameters for their channel (from the API document), and a call through
 * the MCP protocol collects a bounded batch from a scripted event stream, returns the cursor the next
 * call resumes from, says what arrived in a line per channel, and turns refusals into tool errors with
 * the stream's code.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createClient } from '../ts/src/index.js';
import { createMcpServer } from './server.js';
import { channelNamed } from '../../services/streams/channels.js';
import { WATCH_TOOLS, watchToolsFor } from './watch.js';

const encoder = new TextEncoder();
const frame = (message: Record<string, unknown>) => `id: ${message.cursor}\nevent: ${message.type}\ndata: ${JSON.stringify(message)}\n\n`;
const trade = (n: number) => ({
  type: 'trade',
  subscription: 'sse',
  channel: 'trades',
  cursor: `c${n}`,
  data: { trade_id: `t${n}`, side: 'buy', outcome: 'Yes', size_usdc: 1200.5, price: 0.42, market_title: 'Q' },
});

function scripted(answers: Array<Array<Record<string, unknown>> | { status: number; body: unknown }>) {
  const calls: Array<{ url: string; headers: Record<string, string> }> = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), headers: init?.headers as Record<string, string> });
    const answer = answers.shift();
    if (!answer) throw new Error('no scripted answer left');
    if (!Array.isArray(answer)) return new Response(JSON.stringify(answer.body), { status: answer.status });
    const signal = init!.signal!;
    // The frames, then silence until the call's time bound or break closes the connection.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const message of answer) controller.enqueue(encoder.encode(frame(message)));
        signal.addEventListener('abort', () => controller.error(signal.reason));
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

async function connected(fetch: typeof globalThis.fetch) {
  const server = createMcpServer(createClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'aif_test', fetch }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

type ToolResult = { isError?: boolean; structuredContent: any; content: Array<{ type: string; text: string }> };

test("watch_trades' inputs are the event stream's filters and cursor plus the call's bounds", () => {
  const [tool] = watchToolsFor();
  expect(tool!.name).toBe('watch_trades');
  expect(Object.keys(tool!.inputSchema.properties)).toEqual([
    'market',
    'wallet',
    'side',
    'min_size',
    'cursor',
    'max_messages',
    'max_seconds',
  ]);
  expect(tool!.inputSchema.properties.side).toMatchObject({ enum: ['buy', 'sell'] });
  expect(JSON.stringify(tool!.inputSchema)).not.toContain('$ref');
  expect(tool!.description).toMatch(/pass `cursor` to the next call/);
  expect(tool!.description).toContain('Tier 2');
  // Each tool's tier is its channel's own, as the service enforces it.
  for (const [name, { channel, access }] of Object.entries(WATCH_TOOLS))
    expect([name, access]).toEqual([name, channelNamed(channel)?.access]);
  expect(watchToolsFor({})).toEqual([]);
});

test("every watch tool takes exactly its channel's filters, the cursor and the call's bounds", () => {
  const tools = watchToolsFor();
  expect(tools.map((tool) => tool.name)).toEqual(Object.keys(WATCH_TOOLS));
  for (const tool of tools) {
    const filters = channelNamed(tool.channel)!.filters;
    expect([tool.name, Object.keys(tool.inputSchema.properties).sort()]).toEqual([
      tool.name,
      [...filters, 'cursor', 'max_messages', 'max_seconds'].sort(),
    ]);
  }
});

test('watch_copy_events reads the copy channel and says in a line what each event did', async () => {
  const copy = (n: number, data: Record<string, unknown>) => ({
    type: 'copy',
    subscription: 'sse',
    channel: 'copy',
    cursor: `k${n}`,
    data,
  });
  const { fetch, calls } = scripted([
    [
      { type: 'subscribed', subscription: 'sse', channel: 'copy', cursor: 'k0' },
      copy(1, { event: 'copy.executed', side: 'buy', outcome: 'YES', child_size_usdc: 25, status: 'dry_run' }),
      copy(2, { event: 'risk.blocked', reason: 'max_daily_notional', leader_size_usdc: 1200 }),
    ],
  ]);
  const client = await connected(fetch);
  const result = (await client.callTool({
    name: 'watch_copy_events',
    arguments: { copy_subscription_id: 7, max_messages: 2 },
  })) as ToolResult;
  expect(result.structuredContent.cursor).toBe('k2');
  expect(result.content[0]!.text).toBe(
    '2 messages (latest: copy.executed buy YES $25 (dry_run); risk.blocked max_daily_notional (leader $1,200)). Next call: cursor="k2".',
  );
  expect(calls[0]!.url).toBe('http://127.0.0.1:9/v1/stream/sse?channel=copy&copy_subscription_id=7');
  await client.close();
});

test('a call returns at most max_messages with the cursor to go on from; the next call resumes from it', async () => {
  const { fetch, calls } = scripted([
    [{ type: 'subscribed', subscription: 'sse', channel: 'trades', cursor: 'c0' }, trade(1), trade(2), trade(3)],
    [{ type: 'subscribed', subscription: 'sse', channel: 'trades', cursor: 'c2' }, trade(3)],
  ]);
  const client = await connected(fetch);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toContain('watch_trades');

  const first = (await client.callTool({ name: 'watch_trades', arguments: { market: 'some-market', max_messages: 2 } })) as ToolResult;
  expect(first.isError).toBeFalsy();
  expect(first.structuredContent).toEqual({ data: [trade(1).data, trade(2).data], cursor: 'c2' });
  expect(first.content[0]!.text).toBe(
    '2 messages (latest: buy Yes $1,201 @ 0.420 in Q; buy Yes $1,201 @ 0.420 in Q). Next call: cursor="c2".',
  );
  expect(calls[0]!.url).toBe('http://127.0.0.1:9/v1/stream/sse?channel=trades&market=some-market');

  // Bounded by time: what arrived within max_seconds, and the cursor past it.
  const second = (await client.callTool({ name: 'watch_trades', arguments: { cursor: 'c2', max_seconds: 0.2 } })) as ToolResult;
  expect(second.structuredContent).toEqual({ data: [trade(3).data], cursor: 'c3' });
  expect(calls[1]!.headers['last-event-id']).toBe('c2');
  await client.close();
});

test('refusals are tool errors with the stream code: a Tier 1 key, an expired cursor, an unknown argument', async () => {
  const { fetch } = scripted([
    { status: 402, body: { success: false, code: 'PAYMENT_REQUIRED', error: 'Tier 2 required: this key is Tier 1' } },
    { status: 410, body: { success: false, code: 'GONE', error: 'Last-Event-ID: the event log no longer holds the records' } },
  ]);
  const client = await connected(fetch);
  const paid = (await client.callTool({ name: 'watch_trades', arguments: {} })) as ToolResult;
  expect(paid.isError).toBe(true);
  expect(paid.structuredContent.error).toMatchObject({ code: 'PAYMENT_REQUIRED', status: 402 });
  expect(paid.content[0]!.text).toMatch(/To unlock it/);
  const expired = (await client.callTool({ name: 'watch_trades', arguments: { cursor: 'old' } })) as ToolResult;
  expect(expired.structuredContent.error).toMatchObject({ code: 'CURSOR_EXPIRED', status: 410 });
  const unknown = (await client.callTool({ name: 'watch_trades', arguments: { channel: 'trades' } })) as ToolResult;
  expect(unknown.structuredContent.error).toMatchObject({ code: 'BAD_REQUEST' });
  await client.close();
});
