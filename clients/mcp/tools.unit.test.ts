/** The tool list follows the API document: every product tool whose operation exists is offered, derived from that operation. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify, parse } from 'yaml';
import { readApiDocument } from '../../tools/codegen/openapi-document.js';
import { OPERATIONS, type OperationSpec } from '../ts/src/api.generated.js';
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
