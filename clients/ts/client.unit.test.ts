/**
 * The SDK's request building, retries and errors, against a scripted fetch (what goes on the wire is
 * asserted exactly; time is injected, so no test sleeps). The same client against the running demo:
 * sdk.e2e.test.ts.
 */
import { createClient, isApiError, OPERATIONS, TapelineApiError, TapelineConnectionError } from './src/index.js';

type Scripted = { status: number; body?: unknown; headers?: Record<string, string> } | Error;

function scriptedFetch(answers: Scripted[]) {
  const calls: Array<{ url: string; method: string; headers: Record<string, string>; body: string | undefined }> = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({
      url: String(url),
      method: init?.method ?? 'GET',
      headers: init?.headers as Record<string, string>,
      body: init?.body as string | undefined,
    });
    const answer = answers.shift();
    if (!answer) throw new Error('no scripted answer left');
    if (answer instanceof Error) throw answer;
    return new Response(answer.body === undefined ? '' : JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

const ok = (data: unknown, pagination?: unknown) => ({ status: 200, body: { success: true, data, ...(pagination ? { pagination } : {}) } });
const fail = (status: number, code: string, error: string, headers?: Record<string, string>) => ({
  status,
  body: { success: false, code, error },
  headers,
});

function client(answers: Scripted[], retry = {}) {
  const sleeps: number[] = [];
  const { fetch, calls } = scriptedFetch(answers);
  const tapeline = createClient({
    baseUrl: 'http://127.0.0.1:9/v1/',
    apiKey: 'aif_test',
    fetch,
    retry,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { tapeline, calls, sleeps };
}

test('one method per operation of the document, with path, query and auth on the wire', async () => {
  const { tapeline, calls } = client([ok({ id: '0xabc' }), ok([], { limit: 5, has_more: false, next_cursor: null })]);
  expect(Object.keys(OPERATIONS).every((id) => typeof (tapeline as unknown as Record<string, unknown>)[id] === 'function')).toBe(true);
  await tapeline.getMarket({ id: 'will it/rain?' });
  await tapeline.listTrades({ limit: 5, side: 'buy', min_size: 100, wallet: undefined });
  expect(calls[0]).toMatchObject({ url: 'http://127.0.0.1:9/v1/markets/will%20it%2Frain%3F', method: 'GET', body: undefined });
  expect(calls[0]!.headers.authorization).toBe('Bearer aif_test');
  expect(calls[1]!.url).toBe('http://127.0.0.1:9/v1/trades?limit=5&side=buy&min_size=100');
});

test('JSON bodies carry the body members only; path parameters stay in the path', async () => {
  const { tapeline, calls } = client([ok({ id: '7' })]);
  await tapeline.updateWebhook({ id: '7', enabled: false });
  expect(calls[0]).toMatchObject({ url: 'http://127.0.0.1:9/v1/webhooks/7', method: 'PATCH', body: '{"enabled":false}' });
  expect(calls[0]!.headers['content-type']).toBe('application/json');
});

test('paginate follows next_cursor with the same query until has_more is false', async () => {
  const { tapeline, calls } = client([
    ok([{ trade_id: 'a' }, { trade_id: 'b' }], { limit: 2, has_more: true, next_cursor: 'c1' }),
    ok([{ trade_id: 'c' }], { limit: 2, has_more: false, next_cursor: null }),
  ]);
  const ids: string[] = [];
  for await (const trade of tapeline.paginate('listTrades', { limit: 2, side: 'sell' })) ids.push(trade.trade_id);
  expect(ids).toEqual(['a', 'b', 'c']);
  expect(calls.map((c) => c.url)).toEqual([
    'http://127.0.0.1:9/v1/trades?limit=2&side=sell',
    'http://127.0.0.1:9/v1/trades?limit=2&cursor=c1&side=sell',
  ]);
});

test('429 waits Retry-After seconds, then succeeds', async () => {
  const { tapeline, sleeps, calls } = client([fail(429, 'RATE_LIMITED', 'slow down', { 'retry-after': '3' }), ok({ status: 'ok' })]);
  await expect(tapeline.getHealth()).resolves.toEqual({ status: 'ok' });
  expect(sleeps).toEqual([3000]);
  expect(calls).toHaveLength(2);
});

test('429 with a Retry-After beyond the cap is not waited out: RATE_LIMITED with retryAfterSeconds', async () => {
  const { tapeline, sleeps } = client([fail(429, 'RATE_LIMITED', 'slow down', { 'retry-after': '3600' })]);
  const error = await tapeline.getHealth().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TapelineApiError);
  expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 3600 });
  expect(sleeps).toEqual([]);
});

test('5xx on a GET backs off (full jitter, doubling) up to maxRetries, then throws INTERNAL_ERROR', async () => {
  const { tapeline, sleeps, calls } = client([
    fail(503, 'INTERNAL_ERROR', 'a'),
    fail(503, 'INTERNAL_ERROR', 'b'),
    fail(500, 'INTERNAL_ERROR', 'c'),
  ]);
  const error = await tapeline.getUsage().catch((e: unknown) => e);
  expect(isApiError(error, 'INTERNAL_ERROR')).toBe(true);
  expect(calls).toHaveLength(3);
  expect(sleeps).toEqual([250, 500]); // random 0.5 x 500 ms x 2^retry
});

test('a POST is not retried after a 5xx or a connection failure (it may have taken effect)', async () => {
  const first = client([fail(502, 'INTERNAL_ERROR', 'bad gateway')]);
  await expect(first.tapeline.registerAgent({ name: 'x' })).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  expect(first.calls).toHaveLength(1);
  const second = client([new TypeError('fetch failed')]);
  await expect(second.tapeline.registerAgent({ name: 'x' })).rejects.toBeInstanceOf(TapelineConnectionError);
  expect(second.calls).toHaveLength(1);
});

test('a GET is retried after a connection failure', async () => {
  const { tapeline, calls } = client([new TypeError('ECONNRESET'), ok({ status: 'ok' })]);
  await expect(tapeline.getHealth()).resolves.toEqual({ status: 'ok' });
  expect(calls).toHaveLength(2);
});

test('errors carry the envelope code; a status without an envelope still maps to one', async () => {
  const { tapeline } = client([fail(402, 'PAYMENT_REQUIRED', 'Tier 2 required'), { status: 404, body: undefined }]);
  await expect(tapeline.listTrades()).rejects.toMatchObject({
    status: 402,
    code: 'PAYMENT_REQUIRED',
    message: 'PAYMENT_REQUIRED (402): Tier 2 required',
  });
  await expect(tapeline.getMarket({ id: 'x' })).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
});

test('a 200 that is not the success envelope is a connection error, not data', async () => {
  const { tapeline } = client([{ status: 200, body: { hello: 'proxy page' } }]);
  await expect(tapeline.getHealth()).rejects.toBeInstanceOf(TapelineConnectionError);
});
