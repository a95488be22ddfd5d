/**
 * The assistant tools: each is one API operation, named by the product's tool list and found in the
 * generated operation table by method and path. Its description and input schema come from that
 * operation (summary, parameters with their JSON Schemas), so a tool changes when the document does.
 * A tool whose operation is not in the document the server was generated from is not offered; it
 * appears as soon as the operation lands and `npm run gen` runs (no code change here).
 */
import type { OperationSpec } from '../ts/src/api.generated.js';

/** Every tool of the product's tool list and the operation it wraps. */
export const TOOL_OPERATIONS = {
  search_markets: 'GET /markets',
  get_market: 'GET /markets/{id}',
  get_market_ohlcv: 'GET /markets/{id}/ohlcv',
  get_leaderboard: 'GET /leaderboard',
  browse_traders: 'GET /traders/browse',
  get_trader_stats: 'GET /traders/{wallet}',
  get_trader_pnl: 'GET /traders/{wallet}/pnl',
  get_recent_trades: 'GET /trades',
  get_market_holders: 'GET /markets/{id}/holders',
  get_market_oi: 'GET /markets/{id}/oi',
  get_copy_picks: 'GET /copy-picks',
  get_orderbook: 'GET /markets/{id}/orderbook',
  get_api_usage: 'GET /usage',
  get_briefing: 'GET /briefing',
} as const;

export type ToolName = keyof typeof TOOL_OPERATIONS;

export interface ToolDefinition {
  name: ToolName;
  operationId: string;
  operation: OperationSpec;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required: string[]; additionalProperties: false };
}

const ACCESS: Record<string, string> = {
  any: 'any key',
  tier1: 'any key',
  tier2: 'Tier 2 (platform tokens or credits)',
  tier3: 'Tier 3',
  sandbox: 'sandbox agent keys',
};

/** The document's conventions, which a model cannot guess from a field name alone. */
const UNITS = 'Units: `*_usdc` amounts in USDC, `*_micro` exact integer millionths, prices per share from 0 to 1, times ISO 8601 UTC.';

/**
 * Parameters the schema cannot mark required because only some combinations need them (the trade
 * feed's `from` with a size filter): their own description says "Required when ...", and a model
 * that skips it gets a 400, so the tool description repeats it up front.
 */
function conditionallyRequired(operation: OperationSpec): string[] {
  return operation.parameters
    .filter((parameter) => !parameter.required && parameter.description && /\bRequired when\b/.test(parameter.description))
    .map((parameter) => `\`${parameter.name}\`: ${parameter.description!.slice(parameter.description!.search(/\bRequired when\b/))}`);
}

/** The tools whose operation exists in `operations`, in the product's order. */
export function toolsFor(operations: Readonly<Record<string, OperationSpec>>): ToolDefinition[] {
  const byRoute = new Map(Object.entries(operations).map(([id, op]) => [`${op.method} ${op.path}`, [id, op] as const]));
  const tools: ToolDefinition[] = [];
  for (const [name, route] of Object.entries(TOOL_OPERATIONS) as Array<[ToolName, string]>) {
    const found = byRoute.get(route);
    if (!found) continue;
    const [operationId, operation] = found;
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const parameter of operation.parameters) {
      if (parameter.in === 'header') continue;
      properties[parameter.name] = { ...parameter.schema, ...(parameter.description ? { description: parameter.description } : {}) };
      if (parameter.required) required.push(parameter.name);
    }
    const notes = [
      operation.summary,
      required.length > 0 ? `Required: ${required.map((name) => `\`${name}\``).join(', ')}.` : '',
      ...conditionallyRequired(operation),
      `Returns ${operation.returns}.`,
      operation.paginated
        ? 'Paged: the result has pagination.next_cursor; pass it as `cursor` (same other arguments) for the next page.'
        : '',
      operation.access ? `Needs ${ACCESS[operation.access] ?? operation.access}.` : '',
      UNITS,
    ];
    tools.push({
      name,
      operationId,
      operation,
      description: notes.filter(Boolean).join(' '),
      inputSchema: { type: 'object', properties, required, additionalProperties: false },
    });
  }
  return tools;
}
