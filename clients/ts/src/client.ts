/**
 * The thin layer over the generated operation table: one method per operation (`client.listMarkets({
 * status: 'active' })`), bearer auth, retries (see retry.ts), typed errors by envelope `code`, and
 * async iteration over keyset cursors. Everything about an operation - its path, its parameters,
 * what it returns, whether it pages - comes from api/openapi.yaml through `npm run gen`.
 */
import { OPERATIONS, type OperationId, type Operations, type OperationSpec, type Pagination } from './api.generated.js';
import { codeForStatus, type ErrorCode, TapelineApiError, TapelineConnectionError } from './errors.js';
import { DEFAULT_RETRY, isRetryableStatus, parseRetryAfter, type RetryOptions, retryDelayMs } from './retry.js';
import { type StreamChannel, type StreamOptions, TapelineStream } from './stream.js';

export interface ClientOptions {
  /** The API root, version segment included (default `http://127.0.0.1:8080/v1`). */
  baseUrl?: string;
  /** An `aif_` key; sent as `Authorization: Bearer <key>`. Only POST /agents/register works without one. */
  apiKey?: string;
  /** Per attempt (default 30 s). */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Injected for tests and custom transports (default the global fetch). */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/** One page of a list operation. */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

export type Params<K extends OperationId> = Operations[K]['params'];
type ParamsArg<K extends OperationId> = Operations[K]['paramsOptional'] extends true ? [params?: Params<K>] : [params: Params<K>];
type Item<K extends OperationId> = Operations[K]['data'] extends Array<infer T> ? T : never;
export type PaginatedId = { [K in OperationId]: Operations[K]['paginated'] extends true ? K : never }[OperationId];
export type Result<K extends OperationId> = Operations[K]['paginated'] extends true ? Page<Item<K>> : Operations[K]['data'];

/** The generated methods: one per operationId. */
export type OperationMethods = { [K in OperationId]: (...params: ParamsArg<K>) => Promise<Result<K>> };

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/v1';

export class TapelineClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly retry: RetryOptions;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly injectedSleep: ((ms: number) => Promise<void>) | undefined;
  private readonly random: () => number;
  private readonly headers: Record<string, string>;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.injectedSleep = options.sleep;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.headers = { accept: 'application/json', ...options.headers };
    if (this.apiKey) this.headers.authorization = `Bearer ${this.apiKey}`;
  }

  /**
   * Calls an operation by id: `client.request('getMarket', { id: 'slug' })`. A file operation
   * (`downloadExportFile`) returns the successful Response unread: `await response.arrayBuffer()`, or
   * stream `response.body` (`downloadExport` in exports.ts writes a whole export to a folder).
   */
  async request<K extends OperationId>(operation: K, ...[params]: ParamsArg<K>): Promise<Result<K>> {
    const spec: OperationSpec = OPERATIONS[operation];
    if (!spec) throw new TypeError(`unknown operation ${String(operation)}`);
    const { url, body } = this.buildRequest(spec, (params ?? {}) as Record<string, unknown>);
    const response = await this.send(spec, url, body);
    if (spec.binary) return response as Result<K>;
    const envelope = parseJson(await response.text()) as { success?: boolean; data?: unknown; pagination?: Pagination } | undefined;
    if (envelope?.success !== true) throw new TapelineConnectionError(`${spec.method} ${url}: the answer is not the success envelope`);
    return (spec.paginated ? { data: envelope.data, pagination: envelope.pagination } : envelope.data) as Result<K>;
  }

  /**
   * A file operation's Response from byte `from` on, for resuming a download cut short: sent with
   * `Range: bytes=<from>-`, answered 206 with the rest of the file, or 200 with the whole file when
   * the server ignores the range (a client must then start again from byte 0).
   */
  async requestFileFrom<K extends OperationId>(operation: K, from: number, ...[params]: ParamsArg<K>): Promise<Response> {
    const spec: OperationSpec = OPERATIONS[operation];
    if (!spec?.binary) throw new TypeError(`${String(operation)} is not a file operation`);
    const { url } = this.buildRequest(spec, (params ?? {}) as Record<string, unknown>);
    return this.send(spec, url, undefined, from > 0 ? { range: `bytes=${from}-` } : {});
  }

  /** Every page of a list operation, following `next_cursor` until `has_more` is false. */
  async *pages<K extends PaginatedId>(operation: K, ...[params]: ParamsArg<K>): AsyncGenerator<Result<K>> {
    let cursor: string | undefined;
    for (;;) {
      const page = (await this.request(operation, ...([{ ...params, ...(cursor ? { cursor } : {}) }] as ParamsArg<K>))) as Page<unknown>;
      yield page as Result<K>;
      if (!page.pagination.has_more || !page.pagination.next_cursor) return;
      cursor = page.pagination.next_cursor;
    }
  }

  /** Every item of a list operation across pages: `for await (const trade of client.paginate('listTrades', { limit: 500 }))`. */
  async *paginate<K extends PaginatedId>(operation: K, ...params: ParamsArg<K>): AsyncGenerator<Item<K>> {
    for await (const page of this.pages(operation, ...params)) yield* (page as Page<Item<K>>).data;
  }

  /**
   * A live stream of one channel (GET /stream/sse), resumed with its cursor after a dropped
   * connection: `for await (const { data } of client.stream({ channel: 'trades', filters: { market } }))`.
   * See stream.ts for what is retried and what is thrown.
   */
  stream<C extends StreamChannel>(options: StreamOptions<C>): TapelineStream<C> {
    const { accept: _, ...headers } = this.headers;
    return new TapelineStream(
      { baseUrl: this.baseUrl, headers, fetch: this.fetchImpl, sleep: this.injectedSleep, random: this.random },
      options,
    );
  }

  private buildRequest(spec: OperationSpec, params: Record<string, unknown>): { url: string; body: string | undefined } {
    let path = spec.path;
    const query = new URLSearchParams();
    const body: Record<string, unknown> = {};
    for (const parameter of spec.parameters) {
      const value = params[parameter.name];
      if (value === undefined || value === null) {
        if (parameter.in === 'path') throw new TypeError(`${parameter.name} is required`);
        continue;
      }
      if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
      else if (parameter.in === 'query') {
        for (const item of Array.isArray(value) ? value : [value]) query.append(parameter.name, String(item));
      }
    }
    for (const name of spec.body) if (params[name] !== undefined) body[name] = params[name];
    const search = query.toString();
    return {
      url: `${this.baseUrl}${path}${search ? `?${search}` : ''}`,
      body:
        spec.method === 'GET' || spec.method === 'DELETE'
          ? undefined
          : JSON.stringify(spec.body.length === 1 && spec.body[0] === 'body' ? body.body : body),
    };
  }

  /** The successful response (body unread), after the retries; a refusal is thrown as its typed error. */
  private async send(spec: OperationSpec, url: string, body: string | undefined, extra: Record<string, string> = {}): Promise<Response> {
    const method = spec.method;
    const accepted = spec.binary ? { ...this.headers, accept: '*/*', ...extra } : this.headers;
    const headers = body === undefined ? accepted : { ...accepted, 'content-type': 'application/json' };
    for (let retry = 0; ; retry++) {
      let response: Response;
      // A JSON answer must arrive whole within timeoutMs; a file may take longer than that and is only
      // given up when it stalls (idleTimeout below).
      const controller = spec.binary ? new AbortController() : undefined;
      const headersTimer = controller
        ? setTimeout(() => controller.abort(new Error(`no answer in ${this.timeoutMs} ms`)), this.timeoutMs)
        : undefined;
      try {
        response = await this.fetchImpl(url, { method, headers, body, signal: controller?.signal ?? AbortSignal.timeout(this.timeoutMs) });
      } catch (error) {
        clearTimeout(headersTimer);
        const wait = method === 'GET' ? retryDelayMs(retry, null, this.retry, this.random) : null;
        if (wait === null) throw new TapelineConnectionError(`${method} ${url}: ${(error as Error).message}`, error);
        await this.sleep(wait);
        continue;
      }
      clearTimeout(headersTimer);
      if (response.ok) return controller ? idleTimeout(response, controller, this.timeoutMs) : response;
      const text = await response.text();
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'), Date.now());
      const wait = isRetryableStatus(response.status, method) ? retryDelayMs(retry, retryAfter, this.retry, this.random) : null;
      if (wait === null) {
        const envelope = parseJson(text) as { code?: ErrorCode; error?: string } | undefined;
        throw new TapelineApiError(
          response.status,
          envelope?.code ?? codeForStatus(response.status),
          envelope?.error ?? (text.slice(0, 200) || response.statusText),
          retryAfter,
        );
      }
      await this.sleep(wait);
    }
  }
}

/** The response with its body aborted once no bytes arrived for `ms` (a stalled download ends instead of hanging). */
function idleTimeout(response: Response, controller: AbortController, ms: number): Response {
  if (!response.body) return response;
  const stall = () => controller.abort(new Error(`the download stalled: no bytes for ${ms} ms`));
  let timer = setTimeout(stall, ms);
  const watch = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, out) {
      clearTimeout(timer);
      timer = setTimeout(stall, ms);
      out.enqueue(chunk);
    },
    flush() {
      clearTimeout(timer);
    },
  });
  return new Response(response.body.pipeThrough(watch), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A client with one method per operation: `const tapeline = createClient({ apiKey }); await tapeline.getMarket({ id })`. */
export function createClient(options: ClientOptions = {}): TapelineClient & OperationMethods {
  const client = new TapelineClient(options) as TapelineClient & OperationMethods;
  for (const id of Object.keys(OPERATIONS) as OperationId[]) {
    Object.defineProperty(client, id, {
      value: (params?: Record<string, unknown>) => (client.request as (op: OperationId, p?: unknown) => Promise<unknown>)(id, params),
      enumerable: false,
    });
  }
  return client;
}
