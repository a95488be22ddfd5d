/**
 * The SDK's stream helper against a scripted fetch serving event streams: what it resumes with after a
 * dropped connection, a resumable server error and silence; what it throws; how it parses the event
 * stream format; that leaving the loop closes the connection. Against the real service:
 * stream.int.test.ts.
 */
import { createClient, isStreamError, type StreamServerMessage, TapelineConnectionError } from './src/index.js';
import { sseData } from './src/stream.js';

const encoder = new TextEncoder();
const trade = (n: number) =>
  ({
    type: 'trade',
    subscription: 'sse',
    channel: 'trades',
    cursor: `c${n}`,
    data: { trade_id: `t${n}` },
  }) as unknown as StreamServerMessage;
const subscribed = (cursor: string): StreamServerMessage => ({ type: 'subscribed', subscription: 'sse', channel: 'trades', cursor });
const heartbeat = (cursor: string): StreamServerMessage => ({
  type: 'heartbeat',
  subscription: 'sse',
  cursor,
  time: '2026-01-01T00:00:00.000Z',
});
const streamError = (code: string, cursor: string | null = null) =>
  ({ type: 'error', code, message: `${code} happened`, parameter: null, subscription: 'sse', cursor }) as StreamServerMessage;
const frame = (message: StreamServerMessage) =>
  `${'cursor' in message && message.cursor ? `id: ${message.cursor}\n` : ''}event: ${message.type}\ndata: ${JSON.stringify(message)}\n\n`;

/** A scripted answer: an event stream (ending, failing or hanging after its frames) or a refusal. */
type Answer =
  | { frames: StreamServerMessage[]; after: 'end' | 'fail' | 'hang'; onCancel?: () => void }
  | { status: number; body: unknown; headers?: Record<string, string> };

function scripted(answers: Answer[]) {
  const calls: Array<{ url: string; headers: Record<string, string>; signal: AbortSignal }> = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), headers: init?.headers as Record<string, string>, signal: init!.signal! });
    const answer = answers.shift();
    if (!answer) throw new Error('no scripted answer left');
    if ('status' in answer) return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
    const signal = init!.signal!;
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        signal.addEventListener('abort', () => controller.error(signal.reason));
      },
      // The frames first; the end, failure or silence only once they were read (as on a socket).
      pull(controller) {
        if (pulls++ === 0) {
          for (const message of answer.frames) controller.enqueue(encoder.encode(frame(message)));
          return;
        }
        if (answer.after === 'end') controller.close();
        if (answer.after === 'fail') controller.error(new TypeError('terminated: other side closed'));
        return new Promise<void>(() => undefined);
      },
      cancel: () => answer.onCancel?.(),
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  const sleeps: number[] = [];
  const client = createClient({
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: 'aif_test',
    fetch: fetch as typeof globalThis.fetch,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { client, calls, sleeps };
}

async function collect(iterable: AsyncIterable<{ data: { trade_id: string } }>, into: string[]) {
  for await (const message of iterable) into.push(message.data.trade_id);
}

test('resumes after a dropped connection and after slow_consumer with the cursor of the last message handed out', async () => {
  const { client, calls, sleeps } = scripted([
    { frames: [subscribed('c0'), trade(1), trade(2)], after: 'fail' },
    { frames: [subscribed('c2'), heartbeat('c3'), trade(4), streamError('slow_consumer', 'c4')], after: 'end' },
    // The heartbeat moves the cursor past records the filters dropped.
    { frames: [subscribed('c4'), trade(5), heartbeat('c6')], after: 'end' },
    { status: 410, body: { success: false, code: 'GONE', error: 'Last-Event-ID: the event log no longer holds the records' } },
  ]);
  const stream = client.stream({ channel: 'trades', filters: { market: 'some-market', side: 'buy', min_size: 1000 } });
  const ids: string[] = [];
  const ended = await collect(stream, ids).catch((error: unknown) => error);
  expect(ids).toEqual(['t1', 't2', 't4', 't5']);
  expect(calls.map((call) => call.headers['last-event-id'])).toEqual([undefined, 'c2', 'c4', 'c6']);
  expect(calls[0]!.url).toBe('http://127.0.0.1:9/v1/stream/sse?channel=trades&market=some-market&side=buy&min_size=1000');
  expect(calls[0]!.headers).toMatchObject({ authorization: 'Bearer aif_test', accept: 'text/event-stream' });
  // Each connection that got `subscribed` resets the backoff: every wait is the first step's half (random 0.5).
  expect(sleeps).toEqual([250, 250, 250]);
  expect(isStreamError(ended, 'cursor_expired')).toBe(true);
  expect(ended).toMatchObject({ status: 410, parameter: 'Last-Event-ID' });
  expect(stream.cursor).toBe('c6');
  expect(stream.connections).toBe(4);
});

test('refusals a retry cannot fix are thrown at once; 429 and 5xx are retried with capped exponential backoff', async () => {
  const refused = scripted([{ status: 402, body: { success: false, code: 'PAYMENT_REQUIRED', error: 'Tier 2 required: ...' } }]);
  const error = await collect(refused.client.stream({ channel: 'trades' }), []).catch((e: unknown) => e);
  expect(error).toMatchObject({ name: 'TapelineStreamError', code: 'payment_required', status: 402, parameter: null });
  expect(refused.calls).toHaveLength(1);

  const busy = { status: 503, body: { success: false, code: 'SERVICE_UNAVAILABLE', error: 'starting' } };
  const limited = { status: 429, body: { success: false, code: 'RATE_LIMITED', error: 'cap' }, headers: { 'retry-after': '3' } };
  const failing = scripted([busy, limited, busy, busy, busy, busy]);
  const stream = failing.client.stream({
    channel: 'trades',
    cursor: 'c9',
    reconnect: { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 4000 },
  });
  const gaveUp = await collect(stream, []).catch((e: unknown) => e);
  expect(gaveUp).toBeInstanceOf(TapelineConnectionError);
  expect((gaveUp as Error).message).toMatch(/6 connection attempts in a row failed/);
  // Half of min(4000, 1000 * 2^(failures - 1)); Retry-After wins when given.
  expect(failing.sleeps).toEqual([500, 3000, 2000, 2000, 2000]);
  expect(failing.calls.every((call) => call.headers['last-event-id'] === 'c9')).toBe(true);

  const badFilter = scripted([{ frames: [subscribed('c0'), streamError('bad_request')], after: 'end' }]);
  await expect(collect(badFilter.client.stream({ channel: 'trades' }), [])).rejects.toMatchObject({ code: 'bad_request', status: null });
});

test('silence past idleTimeoutMs counts as a dead connection and resumes', async () => {
  const { client, calls } = scripted([
    { frames: [subscribed('c0'), trade(1)], after: 'hang' },
    { frames: [subscribed('c1'), trade(2)], after: 'end' },
    { status: 401, body: { success: false, code: 'UNAUTHORIZED', error: 'key revoked' } },
  ]);
  const ids: string[] = [];
  await expect(collect(client.stream({ channel: 'trades', idleTimeoutMs: 50 }), ids)).rejects.toMatchObject({ code: 'unauthorized' });
  expect(ids).toEqual(['t1', 't2']);
  expect(calls.map((call) => call.headers['last-event-id'])).toEqual([undefined, 'c1', 'c2']);
  expect(calls[0]!.signal.aborted).toBe(true);
});

test('break out of the loop closes the connection and keeps the cursor of the last message handed out', async () => {
  let cancelled = false;
  const { client, calls } = scripted([
    { frames: [subscribed('c0'), trade(1), trade(2), trade(3)], after: 'hang', onCancel: () => (cancelled = true) },
  ]);
  const stream = client.stream({ channel: 'trades' });
  for await (const message of stream) if (message.data.trade_id === 't2') break;
  expect(stream.cursor).toBe('c2');
  expect(cancelled || calls[0]!.signal.aborted).toBe(true);
  expect(calls[0]!.signal.aborted).toBe(true);
  expect(() => stream[Symbol.asyncIterator]()).toThrow(/iterated once/);

  // close() from elsewhere ends a stream that is waiting for messages.
  const waiting = scripted([{ frames: [subscribed('c0')], after: 'hang' }]);
  const idle = waiting.client.stream({ channel: 'trades' });
  const done = collect(idle, []);
  await new Promise((resolve) => setTimeout(resolve, 20));
  idle.close();
  await expect(done).resolves.toBeUndefined();
  expect(waiting.calls).toHaveLength(1);
});

test('the event stream parser handles any chunking, CRLF and CR line ends, multi-line data and comments', async () => {
  const text = ': comment\r\nid: c1\r\nevent: trade\r\ndata: {"a":\r\ndata:1}\r\n\r\nretry: 10\rdata: two\r\r\n\nevent: x\n\n';
  const bytes = encoder.encode(text);
  for (const size of [1, 2, 3, 7, bytes.length]) {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.slice(i, i + size));
        controller.close();
      },
    });
    const data: string[] = [];
    for await (const item of sseData(body)) data.push(item);
    expect([size, data]).toEqual([size, ['{"a":\n1}', 'two']]);
  }
});
