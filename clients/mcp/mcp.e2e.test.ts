/**
 * The MCP server as an assistant host runs it - a child process over stdio, and a streamable HTTP
 * server - driven by the MCP SDK's own client against the running demo.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Demo, startDemo } from '../../test/support/demo.js';
import { waitFor } from '../../test/support/http.js';
import { freePort, REPO_ROOT, startChild, type Child } from '../../test/support/processes.js';
import { OPERATIONS } from '../ts/src/api.generated.js';
import { toolsFor } from './tools.js';
import { watchToolsFor } from './watch.js';

let demo: Demo;
let httpServer: Child | undefined;
const clients: Client[] = [];

beforeAll(async () => {
  demo = await startDemo();
}, 200_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await httpServer?.kill('SIGTERM');
  await demo?.stop();
});

const env = (key: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  TAPELINE_BASE_URL: demo.apiBase,
  TAPELINE_API_KEY: key,
});

async function stdioClient(key: string): Promise<Client> {
  const client = new Client({ name: 'tapeline-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join('clients', 'mcp', 'main.ts')],
      cwd: REPO_ROOT,
      env: env(key),
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
}

async function httpClient(headers: Record<string, string> = {}): Promise<Client> {
  if (!httpServer) {
    const port = await freePort();
    httpServer = startChild('clients/mcp/main.ts', { ...env(demo.sandboxKey), MCP_HTTP_PORT: String(port) }, ['--http']);
    (httpServer as Child & { port?: number }).port = port;
    const deadline = Date.now() + 30_000;
    while (!httpServer.output().includes('(streamable HTTP) on')) {
      if (Date.now() > deadline) throw new Error(`MCP HTTP server did not start:\n${httpServer.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const port = (httpServer as Child & { port?: number }).port!;
  const client = new Client({ name: 'tapeline-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args }, undefined, { timeout: 150_000 })) as ToolResult;

test('stdio: lists the tools of the document, with input schemas from the operation parameters', async () => {
  const client = await stdioClient(demo.tier2Key);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual([...toolsFor(OPERATIONS), ...watchToolsFor()].map((tool) => tool.name));
  const trades = tools.find((tool) => tool.name === 'get_recent_trades')!;
  expect(trades.inputSchema.properties).toHaveProperty('min_size');
  expect(trades.inputSchema.properties).toHaveProperty('cursor');
}, 300_000);

test('stdio: search_markets pages with cursors; structured content plus a text summary', async () => {
  const client = await stdioClient(demo.tier2Key);
  const first = await call(client, 'search_markets', { status: 'active', sort: 'volume', limit: 2 });
  expect(first.isError).toBeFalsy();
  expect(first.structuredContent.data).toHaveLength(2);
  expect(first.structuredContent.pagination).toMatchObject({ limit: 2, has_more: true });
  const cursor = first.structuredContent.pagination.next_cursor as string;
  expect(first.content[0]!.text).toContain(`cursor="${cursor}"`);
  expect(first.content[0]!.text).toContain(first.structuredContent.data[0].title);
  const second = await call(client, 'search_markets', { status: 'active', sort: 'volume', limit: 2, cursor });
  const ids = [...first.structuredContent.data, ...second.structuredContent.data].map((m: any) => m.id);
  expect(new Set(ids).size).toBe(4);
  // The same rows as the REST API returns for the same query.
  const rest = await (
    await fetch(`${demo.apiBase}/markets?status=active&sort=volume&limit=4`, { headers: { authorization: `Bearer ${demo.tier2Key}` } })
  ).json();
  expect(ids).toEqual(rest.data.map((m: any) => m.id));
}, 300_000);

test('stdio: get_recent_trades honours min_size; market tools answer for a real market', async () => {
  const client = await stdioClient(demo.tier2Key);
  const all = await call(client, 'get_recent_trades', { limit: 50 });
  const sizes = all.structuredContent.data.map((t: any) => t.size_usdc).sort((a: number, b: number) => a - b);
  const threshold = sizes[Math.floor(sizes.length / 2)];
  // A size filter without a market or wallet needs a time window (at most 31 days): the last day here.
  const large = await call(client, 'get_recent_trades', {
    limit: 50,
    min_size: threshold,
    from: new Date(Date.now() - 86_400_000).toISOString(),
  });
  expect(large.structuredContent.data.length).toBeGreaterThan(0);
  expect(large.structuredContent.data.every((t: any) => t.size_usdc >= threshold)).toBe(true);

  const market = await call(client, 'get_market', { id: demo.market.slug });
  expect(market.structuredContent.data.id).toBe(demo.market.id);
  expect(market.content[0]!.text).toContain(market.structuredContent.data.title);
  // Once, on a loaded CI machine, the market's candles came back empty here though the demo had served
  // them at start (not reproduced: two demos probed every 300 ms from their start, for 4 and 11
  // minutes): wait for them, and print what the API and its chain coverage said meanwhile, so a
  // recurrence shows its cause.
  const candles = await waitFor(
    async () => {
      const result = await call(client, 'get_market_ohlcv', { id: demo.market.id, interval: '1h', limit: 24 });
      if (result.structuredContent.data?.length > 0) return result;
      const health = await (await fetch(`${demo.apiBase}/health`, { headers: { authorization: `Bearer ${demo.tier2Key}` } })).json();
      console.warn('get_market_ohlcv answered no candles', JSON.stringify({ result: result.structuredContent, chain: health.data?.chain }));
      return null;
    },
    60_000,
    "the market's candles",
    1_000,
  );
  expect(candles.content[0]!.text).toMatch(/^\d+ candles; last /);
  const usage = await call(client, 'get_api_usage');
  expect(usage.structuredContent.data).toMatchObject({ tier: '2' });
}, 300_000);

test('stdio: watch_trades collects live trades and the next call goes on from its cursor with none twice', async () => {
  const client = await stdioClient(demo.tier2Key);
  const first = await call(client, 'watch_trades', { max_messages: 3, max_seconds: 20 });
  expect(first.isError).toBeFalsy();
  expect(first.structuredContent.data.length).toBeGreaterThan(0);
  expect(first.content[0]!.text).toContain(`cursor="${first.structuredContent.cursor}"`);
  const second = await call(client, 'watch_trades', { max_messages: 3, max_seconds: 20, cursor: first.structuredContent.cursor });
  expect(second.isError).toBeFalsy();
  const ids = [...first.structuredContent.data, ...second.structuredContent.data].map((t: any) => t.trade_id);
  expect(new Set(ids).size).toBe(ids.length);
}, 300_000);

test('stdio: API errors keep their code; a bad parameter is BAD_REQUEST naming it', async () => {
  const client = await stdioClient(demo.tier2Key);
  const bad = await call(client, 'get_trader_stats', { wallet: 'not-a-wallet' });
  expect(bad.isError).toBe(true);
  expect(bad.structuredContent.error).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  expect(bad.content[0]!.text).toMatch(/^BAD_REQUEST \(HTTP 400\): .*wallet/);
  const missing = await call(client, 'get_market', {});
  expect(missing.structuredContent.error.code).toBe('BAD_REQUEST');
  const unknownMarket = await call(client, 'get_market', { id: 'no-such-market-slug' });
  expect(unknownMarket.structuredContent.error.code).toBe('NOT_FOUND');
}, 300_000);

test('streamable HTTP: the same tools; a sandbox key gets PAYMENT_REQUIRED for Tier 2 with what would unlock it', async () => {
  const client = await httpClient();
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual([...toolsFor(OPERATIONS), ...watchToolsFor()].map((tool) => tool.name));
  const markets = await call(client, 'search_markets', { limit: 3 });
  expect(markets.structuredContent.data).toHaveLength(3);
  const refused = await call(client, 'get_leaderboard', { limit: 5 });
  expect(refused.isError).toBe(true);
  expect(refused.structuredContent.error).toMatchObject({ code: 'PAYMENT_REQUIRED', status: 402 });
  expect(refused.content[0]!.text).toContain('Tier 2 required');
  expect(refused.content[0]!.text).toContain('To unlock it: add credits');
}, 300_000);

test('streamable HTTP: a request carrying its own bearer key is served with that key', async () => {
  const client = await httpClient({ authorization: `Bearer ${demo.tier2Key}` });
  const leaders = await call(client, 'get_leaderboard', { limit: 5 });
  expect(leaders.isError).toBeFalsy();
  expect(leaders.structuredContent.pagination.limit).toBe(5);
}, 300_000);
