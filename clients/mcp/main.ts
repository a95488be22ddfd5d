/**
 * `npm run mcp` (stdio, for desktop MCP hosts) or `npm run mcp -- --http` (streamable HTTP on
 * MCP_HTTP_HOST:MCP_HTTP_PORT, path /mcp). Configuration from the environment:
 * TAPELINE_BASE_URL (default http://127.0.0.1:8080/v1), TAPELINE_API_KEY and TAPELINE_TIMEOUT_MS (per API
 * attempt, default 30 s). Over HTTP a request
 * may carry its own `Authorization: Bearer aif_...`, which then replaces the configured key for that
 * request, so one server can serve several users. stdout belongs to the protocol under stdio: logs
 * go to stderr.
 */
import http from 'node:http';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { TapelineClient } from '../ts/src/index.js';
import { createMcpServer } from './server.js';

const baseUrl = process.env.TAPELINE_BASE_URL || 'http://127.0.0.1:8080/v1';
const apiKey = process.env.TAPELINE_API_KEY || undefined;
const timeoutMs = Number(process.env.TAPELINE_TIMEOUT_MS || 30_000);
const clientFor = (key: string | undefined) => new TapelineClient({ baseUrl, apiKey: key, timeoutMs });

if (process.argv.includes('--http')) {
  const host = process.env.MCP_HTTP_HOST || '127.0.0.1';
  const port = Number(process.env.MCP_HTTP_PORT || 8765);
  const server = http.createServer(async (request, response) => {
    if (new URL(request.url ?? '/', 'http://x').pathname !== '/mcp') return void response.writeHead(404).end();
    const bearer = /^Bearer (aif_\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    // Stateless: a fresh server and transport per request (no session to pin a client to one process).
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      enableDnsRebindingProtection: true,
      allowedHosts: [`${host}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`],
    });
    const mcp = createMcpServer(clientFor(bearer ?? apiKey));
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    try {
      await mcp.connect(transport);
      await transport.handleRequest(request, response);
    } catch (error) {
      console.error('mcp request failed', error);
      if (!response.headersSent) response.writeHead(500).end();
    }
  });
  server.listen(port, host, () => console.error(`tapeline MCP server (streamable HTTP) on http://${host}:${port}/mcp -> ${baseUrl}`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  const mcp = createMcpServer(clientFor(apiKey));
  await mcp.connect(new StdioServerTransport());
  console.error(`tapeline MCP server (stdio) -> ${baseUrl}`);
}
