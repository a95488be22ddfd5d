/**
 * The MCP server: lists the tools of tools.ts and runs each as its API call through the TypeScript
 * SDK (so auth, retries on 429/5xx and typed errors are the SDK's). Results are structured content
 * (`data`, plus `pagination` for lists) and a short text summary; API errors come back as tool
 * errors that carry the envelope's code, and a 402 says what would unlock the call.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { API_VERSION, OPERATIONS, type OperationId } from '../ts/src/api.generated.js';
import { TapelineApiError, type TapelineClient } from '../ts/src/index.js';
import { summarize } from './summaries.js';
import { type ToolDefinition, toolsFor } from './tools.js';

const UNLOCK =
  'To unlock it: add credits or hold enough platform tokens for the tier it needs (get_api_usage shows the quota; GET /v1/pricing/access lists what this key lacks).';

export function createMcpServer(client: TapelineClient, tools: ToolDefinition[] = toolsFor(OPERATIONS)): Server {
  const server = new Server({ name: 'tapeline', version: API_VERSION }, { capabilities: { tools: {} } });
  const byName = new Map(tools.map((tool) => [tool.name as string, tool]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({
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
