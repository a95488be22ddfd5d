/**
 * TEST-ONLY. A stand-in for a ClickHouse server's HTTP interface, backed by chDB (the real
 * ClickHouse engine, in this process), so the analytics store's HTTP adapter (`openHttpStore`,
 * @clickhouse/client over HTTP) runs against real ClickHouse SQL without a ClickHouse server, which
 * no package registry here ships. It implements the part of the protocol that client uses:
 * - GET /ping -> "Ok.";
 * - POST / with the SQL in the body (or `query` in the URL plus the data in the body, for INSERT);
 * - URL parameters: `database`, `query_id`, `default_format`, `param_<name>` query parameters
 *   (bound with `SET param_<name>`, so values are parsed by ClickHouse exactly as a server does) and
 *   any other name as a per-query setting (e.g. insert_deduplication_token);
 * - errors as status 500 with ClickHouse's `Code: N. DB::Exception: ...` body and the
 *   X-ClickHouse-Exception-Code header.
 * Fault injection for tests: POST /__harness/faults {"failInserts": n, "mode": "before"|"after"}
 * makes the next n INSERTs fail, either without touching the table or after the rows landed
 * (the ambiguous outcome a timeout gives a real client).
 *
 * Run: node --import tsx test/support/clickhouse-http-harness-server.ts <dataDir> [port]
 * Prints one JSON line {"listening": port} when ready. Binds 127.0.0.1 only.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import zlib from 'node:zlib';
import { Session } from 'chdb';

const HTTP_ONLY = new Set([
  'query',
  'database',
  'query_id',
  'default_format',
  'session_id',
  'session_timeout',
  'session_check',
  'user',
  'password',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'send_progress_in_http_headers',
  'enable_http_compression',
  'http_zlib_compression_level',
  'http_headers_progress_interval_ms',
  'http_response_buffer_size',
  'quota_key',
  'role',
  'output_format_json_quote_64bit_integers_in_http',
  'cancel_http_readonly_queries_on_client_close',
]);

const [dataDir, portArgument] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: clickhouse-http-harness-server.ts <dataDir> [port]');
const session = new Session(dataDir);

const faults = { failInserts: 0, mode: 'before' as 'before' | 'after' };
let queue: Promise<unknown> = Promise.resolve();

/** chDB has one session per process and USE/SET are session state: run one request at a time. */
function serialized<T>(work: () => Promise<T>): Promise<T> {
  const run = queue.then(work, work);
  queue = run.catch(() => undefined);
  return run;
}

const stringLiteral = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

async function execute(url: URL, body: string): Promise<{ bytes: Buffer; rows: number }> {
  const queryInUrl = url.searchParams.get('query') ?? '';
  const sql = queryInUrl ? (body.length > 0 ? `${queryInUrl}\n${body}` : queryInUrl) : body;
  const database = url.searchParams.get('database') || 'default';
  const format = url.searchParams.get('default_format') || 'TabSeparated';
  const setup: string[] = [];
  const settings: string[] = [];
  for (const [name, value] of url.searchParams) {
    if (!identifier.test(name.replace(/^param_/, '')))
      throw new Error(`Code: 115. DB::Exception: Unknown setting ${name}. (UNKNOWN_SETTING)`);
    if (name.startsWith('param_')) setup.push(`SET ${name} = ${stringLiteral(value)}`);
    else if (!HTTP_ONLY.has(name)) {
      setup.push(`SET ${name} = ${stringLiteral(value)}`);
      settings.push(name);
    }
  }
  const isInsert = /^\s*INSERT\b/i.test(sql);
  if (isInsert && faults.failInserts > 0 && faults.mode === 'before') {
    faults.failInserts--;
    throw new Error('Code: 242. DB::Exception: Table is in readonly mode (injected by the test harness). (TABLE_IS_READ_ONLY)');
  }
  await session.queryAsync(`USE ${identifier.test(database) ? database : 'default'}`);
  if (setup.length > 0) await session.queryAsync(setup.join('; '));
  try {
    const result = await session.queryAsync(sql, { format });
    if (isInsert && faults.failInserts > 0 && faults.mode === 'after') {
      faults.failInserts--;
      throw new Error(
        'Code: 209. DB::Exception: Timeout exceeded while writing to socket (injected after the insert landed). (SOCKET_TIMEOUT)',
      );
    }
    return { bytes: Buffer.from(result.bytes()), rows: result.rowsRead };
  } finally {
    // A server applies URL settings to one query; the chDB session would keep them.
    if (settings.length > 0) await session.queryAsync(settings.map((name) => `SET ${name} = DEFAULT`).join('; ')).catch(() => undefined);
  }
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', reject);
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      try {
        resolve((request.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw).toString('utf8'));
      } catch (error) {
        reject(error);
      }
    });
  });
}

// ClickHouse accepts URLs up to http_max_uri_size = 1 MiB (query parameters travel in the URL).
const server = http.createServer({ maxHeaderSize: 1024 * 1024 }, (request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/ping' || (url.pathname === '/' && request.method === 'GET' && !url.searchParams.has('query'))) {
    response.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
    return;
  }
  readBody(request)
    .then(async (body) => {
      if (url.pathname === '/__harness/faults') {
        const wanted = JSON.parse(body || '{}') as Partial<typeof faults>;
        faults.failInserts = wanted.failInserts ?? 0;
        faults.mode = wanted.mode ?? 'before';
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(faults));
        return;
      }
      const queryId = url.searchParams.get('query_id') || randomUUID();
      const result = await serialized(() => execute(url, body));
      response
        .writeHead(200, {
          'content-type': 'text/plain; charset=UTF-8',
          'x-clickhouse-query-id': queryId,
          'x-clickhouse-format': url.searchParams.get('default_format') || 'TabSeparated',
          'x-clickhouse-summary': JSON.stringify({
            read_rows: String(result.rows),
            read_bytes: '0',
            written_rows: '0',
            written_bytes: '0',
            total_rows_to_read: '0',
            result_rows: '0',
            result_bytes: '0',
            elapsed_ns: '0',
          }),
        })
        .end(result.bytes);
    })
    .catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      const code = /^Code: (\d+)\./.exec(message)?.[1] ?? '1001';
      if (!response.headersSent)
        response.writeHead(500, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-exception-code': code });
      response.end(`${message}\n`);
    });
});

server.listen(Number(portArgument ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ listening: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.close();
    serialized(async () => session.cleanup()).finally(() => process.exit(0));
  });
}
