/** The tool list follows the API document: every product tool whose operation exists is offered, derived from that operation. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify, parse } from 'yaml';
import { readApiDocument } from '../../tools/codegen/openapi-document.js';
import { OPERATIONS, type OperationSpec } from '../ts/src/api.generated.js';
import { summarize } from './summaries.js';
import { TOOL_OPERATIONS, toolsFor } from './tools.js';

const SPEC_TOOLS = [
  'search_markets',
  'get_market',
  'get_market_ohlcv',
  'get_leaderboard',
  'browse_traders',
  'get_trader_stats',
  'get_trader_pnl',
  'get_recent_trades',
  'get_market_holders',
  'get_market_oi',
  'get_copy_picks',
  'get_orderbook',
  'get_api_usage',
  'get_briefing',
];

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

test('the tool list names exactly the product tools, each with an operation route', () => {
  expect(Object.keys(TOOL_OPERATIONS)).toEqual(SPEC_TOOLS);
});

test('every product tool whose operation is in the API document is offered (all 14 once their operations exist)', () => {
  const routes = new Set(Object.values(OPERATIONS).map((op) => `${op.method} ${op.path}`));
  const expected = SPEC_TOOLS.filter((name) => routes.has(TOOL_OPERATIONS[name as keyof typeof TOOL_OPERATIONS]));
  expect(toolsFor(OPERATIONS).map((tool) => tool.name)).toEqual(expected);
  // The twelve whose endpoints exist today are live; the rest light up with their operations.
  expect(expected.length).toBeGreaterThanOrEqual(12);
});

test('a document that gains GET /briefing and GET /copy-picks gets get_briefing and get_copy_picks with no code change', () => {
  const document = parse(fs.readFileSync(path.join(root, 'api/openapi.yaml'), 'utf8'));
  const ok = { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Success' } } } } };
  document.paths['/briefing'] ??= { get: { summary: 'Agent heartbeat.', 'x-access': 'sandbox', responses: ok } };
  document.paths['/copy-picks'] ??= {
    get: {
      summary: 'Copy picks.',
      'x-access': 'tier2',
      parameters: [{ name: 'topic', in: 'query', schema: { type: 'string' } }],
      responses: ok,
    },
  };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-mcp-')), 'openapi.yaml');
  fs.writeFileSync(file, stringify(document));
  const operations: Record<string, OperationSpec> = Object.fromEntries(
    readApiDocument(file).operations.map((op) => [op.id, { ...op, body: [] } as unknown as OperationSpec]),
  );
  const tools = toolsFor(operations);
  expect(tools.map((tool) => tool.name).sort()).toEqual([...SPEC_TOOLS].sort());
  const briefing = tools.find((tool) => tool.name === 'get_briefing')!;
  expect(briefing.operationId).toBe('getBriefing');
  expect(briefing.description).toContain('sandbox agent keys');
});

test('input schemas are the operation parameters: get_recent_trades has an optional min_size, get_market a required id', () => {
  const tools = toolsFor(OPERATIONS);
  const trades = tools.find((tool) => tool.name === 'get_recent_trades')!;
  expect(trades.inputSchema.properties.min_size).toMatchObject({
    type: 'number',
    minimum: 0,
    description: expect.stringContaining('USDC'),
  });
  expect(trades.inputSchema.required).toEqual([]);
  expect(trades.description).toContain('cursor');
  const market = tools.find((tool) => tool.name === 'get_market')!;
  expect(market.inputSchema).toMatchObject({ required: ['id'], additionalProperties: false });
  // Self-contained JSON Schema: no $ref into a document the host does not have.
  expect(JSON.stringify(tools.map((tool) => tool.inputSchema))).not.toContain('$ref');
});

test('get_copy_picks is live: GET /copy-picks is in the document, with its topic, window and min_resolved inputs', () => {
  const picks = toolsFor(OPERATIONS).find((tool) => tool.name === 'get_copy_picks')!;
  expect(picks.operationId).toBe('getCopyPicks');
  expect(Object.keys(picks.inputSchema.properties)).toEqual(expect.arrayContaining(['topic', 'window', 'min_resolved', 'limit', 'cursor']));
  expect(picks.inputSchema.properties.window).toMatchObject({ enum: ['7d', '30d', '90d'] });
});

test('descriptions say what a first call needs and what comes back: required and conditionally required inputs, result fields, units', () => {
  const tools = toolsFor(OPERATIONS);
  const trades = tools.find((tool) => tool.name === 'get_recent_trades')!.description;
  // An assistant's first call with min_size alone was a 400 naming `from`; the description says so up front.
  expect(trades).toMatch(/`from`: Required when filtering by `side`, `outcome`, `min_size` or `max_size` without `market` or `wallet`/);
  expect(trades).toContain('31 days');
  expect(trades).toContain('Returns a list of Trade: trade_id,');
  expect(trades).toContain('size_usdc');
  expect(trades).toContain('`*_usdc` amounts in USDC');
  const market = tools.find((tool) => tool.name === 'get_market')!.description;
  expect(market).toContain('Required: `id`.');
  expect(market).toContain('Returns MarketDetail:');
  expect(tools.find((tool) => tool.name === 'get_market_ohlcv')!.description).toContain('Returns a list of Candle: bucket_start,');
});

test('result summaries read as sentences: the briefing and copy picks say what is in them, not their key names', () => {
  const briefing = summarize('get_briefing', {
    agent: { agent_id: 'a1', name: 'bot', topics: [] },
    signals: { since: null, next_since: 's2', has_more: true, items: [{}, {}] },
    paper: {
      account: { equity_usdc: 10250.5, cash_usdc: 9000 },
      positions: [{}],
      open_orders: [],
      fills_since_last: [],
      settlements_since_last: [],
    },
    risk_alerts: [{ kind: 'drawdown', severity: 'warning', message: 'm' }],
    copy_picks: { available: false, reason: 'not computed yet', items: [] },
    next_poll_at: '2026-11-28T12:00:00.000Z',
    next_poll_seconds: 60,
  });
  expect(briefing).toBe(
    '2 new signals (more: pass since=next_since); paper equity $10,251, cash $9,000, 1 positions, 0 open orders; 1 risk alerts (drawdown); copy picks unavailable: not computed yet; poll again in 60 s.',
  );
  const picks = summarize('get_copy_picks', [{ wallet: '0xabc', topic: 'Politics', score: 1.234, copier_roi: { roi_pct: 12.5 } }], {
    limit: 1,
    has_more: false,
    next_cursor: null,
  });
  expect(picks).toBe('1 result: 0xabc in Politics (score 1.23, copier ROI 12.5%). Last page.');
});

test('the order book summary says the instant of a rebuilt book and its capture gaps', () => {
  const book = (extra: Record<string, unknown>, gaps?: unknown[]) => ({
    title: 'Q',
    yes: { best_bid: 0.4, best_ask: 0.6, spread_bps: 4000 },
    outcomes: [{ gaps }, { gaps: [] }],
    ...extra,
  });
  expect(summarize('get_orderbook', book({}))).toBe('Q: best bid 0.400, best ask 0.600, spread 4000 bps.');
  expect(summarize('get_orderbook', book({ at: '2026-11-20T00:00:00.000Z' }, []))).toBe(
    'Q: best bid 0.400, best ask 0.600, spread 4000 bps at 2026-11-20T00:00:00.000Z.',
  );
  expect(summarize('get_orderbook', book({ at: '2026-11-20T00:00:00.000Z' }, [{ from: 'a', to: null }]))).toBe(
    'Q: best bid 0.400, best ask 0.600, spread 4000 bps at 2026-11-20T00:00:00.000Z (1 capture gap: see gaps).',
  );
});
