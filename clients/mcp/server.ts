/**
 * The MCP server: lists the tools of tools.ts and runs each as its API call through the TypeScript
 * SDK (so auth, retries on 429/5xx and typed errors are the SDK's). Results are structured content
 * (`data`, plus `pagination` for lists) and a short text summary; API errors come back as tool
 * errors that carry the envelope's code, and a 402 says what would unlock the call. The bounded
 * watch tools (watch.ts) read a live stream through the SDK's stream helper.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { API_VERSION, OPERATIONS, type OperationId } from '../ts/src/api.generated.js';
import { TapelineApiError, type TapelineClient, TapelineStreamError } from '../ts/src/index.js';
import { summarize } from './summaries.js';
import { type ToolDefinition, toolsFor } from './tools.js';
import { runWatch, summarizeWatch, type WatchToolDefinition, watchToolsFor } from './watch.js';

const UNLOCK =
  'To unlock it: add credits or hold enough platform tokens for the tier it needs (get_api_usage shows the quota; GET /v1/pricing/access lists what this key lacks).';

export function createMcpServer(
  client: TapelineClient,
  tools: ToolDefinition[] = toolsFor(OPERATIONS),
  watchTools: WatchToolDefinition[] = watchToolsFor(),
): Server {
  const server = new Server({ name: 'tapeline', version: API_VERSION }, { capabilities: { tools: {} } });
  const byName = new Map<string, ToolDefinition | WatchToolDefinition>([
    ...tools.map((tool) => [tool.name as string, tool] as const),
    ...watchTools.map((tool) => [tool.name as string, tool] as const),
  ]);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...tools, ...watchTools].map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) return failure('NOT_FOUND', 0, `unknown tool ${request.params.name}; tools: ${[...byName.keys()].join(', ')}`);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(args).filter((name) => !(name in tool.inputSchema.properties));
    if (unknown.length > 0) return failure('BAD_REQUEST', 400, `unknown argument(s) ${unknown.join(', ')} for ${tool.name}`);
    const missing = tool.inputSchema.required.filter((name) => args[name] === undefined || args[name] === '');
    if (missing.length > 0) return failure('BAD_REQUEST', 400, `${missing.join(', ')} is required`);
    if ('stream' in tool) return watch(client, tool, args);
    try {
      const result = (await (client.request as (id: OperationId, params: unknown) => Promise<unknown>)(
        tool.operationId as OperationId,
        args,
      )) as unknown;
      const structured = tool.operation.paginated ? (result as Record<string, unknown>) : { data: result };
      const summary = summarize(tool.name, structured.data, structured.pagination as never);
      return {
        structuredContent: structured,
        content: [
          { type: 'text', text: summary },
          { type: 'text', text: JSON.stringify(structured) },
        ],
      };
    } catch (error) {
      if (error instanceof TapelineApiError) {
        const message = error.message.replace(/^\w+ \(\d+\): /, '');
        return failure(error.code, error.status, message, error.retryAfterSeconds);
      }
      return failure('INTERNAL_ERROR', 0, `the tapeline API could not be reached: ${(error as Error).message}`);
    }
  });
  return server;
}

async function watch(client: TapelineClient, tool: WatchToolDefinition, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const result = await runWatch(client, tool, args);
    return {
      structuredContent: { ...result },
      content: [
        { type: 'text', text: summarizeWatch(result, tool.channel) },
        { type: 'text', text: JSON.stringify(result) },
      ],
    };
  } catch (error) {
    // The stream's own codes (payment_required, cursor_expired, ...) in the envelope codes' spelling.
    if (error instanceof TapelineStreamError)
      return failure(error.code.toUpperCase(), error.status ?? 0, error.message.replace(/^\w+: /, ''));
    return failure('INTERNAL_ERROR', 0, `the tapeline stream could not be read: ${(error as Error).message}`);
  }
}

function failure(code: string, status: number, message: string, retryAfterSeconds: number | null = null): CallToolResult {
  const lines = [`${code}${status ? ` (HTTP ${status})` : ''}: ${message}`];
  if (code === 'PAYMENT_REQUIRED') lines.push(UNLOCK);
  if (code === 'RATE_LIMITED' && retryAfterSeconds !== null) lines.push(`Retry after ${retryAfterSeconds} s.`);
  return {
    isError: true,
    structuredContent: { error: { code, status, message, retry_after_seconds: retryAfterSeconds } },
    content: [{ type: 'text', text: lines.join(' ') }],
  };
}
