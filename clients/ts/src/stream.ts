/**
 * Live streams as an async iterator: `for await (const message of client.stream({ channel: 'trades',
 * filters: { market } }))`. The transport is Server-Sent Events over fetch (GET /stream/sse): fetch
 * runs on every supported Node (20 has no global WebSocket) and in browsers, can send the bearer
 * header (EventSource cannot), and one SSE connection is exactly one subscription, which is what this
 * iterator is. The WebSocket carries the same messages for clients that want several subscriptions
 * on one connection.
 *
 * Resume: the stream keeps the cursor of the last message it handed out (heartbeats advance it past
 * records the filters dropped) and, when the connection drops, goes silent for `idleTimeoutMs`, is
 * closed by the server or ends with a resumable error (`slow_consumer`, `unavailable`,
 * `idle_timeout`), reconnects with that cursor after a capped exponential backoff with full jitter.
 * The service replays from the cursor, so the caller sees no gap and no duplicate. Refusals that a
 * retry cannot fix (`cursor_expired`, the key, its tier, bad filters) are thrown as
 * TapelineStreamError; 429 and 5xx answers are retried like a dropped connection.
 */
import type {
  StreamBookFilters,
  StreamCopyFilters,
  StreamError,
  StreamFillFilters,
  StreamHeartbeat,
  StreamLifecycleFilters,
  StreamPriceFilters,
  StreamServerMessage,
  StreamSignalFilters,
  StreamStrategyFilters,
  StreamSubscribed,
  StreamTradeFilters,
} from './api.generated.js';
import { TapelineConnectionError, TapelineError } from './errors.js';
import { parseRetryAfter } from './retry.js';

export type StreamChannel = StreamSubscribed['channel'];
/** Each channel's filters, the API document's schemas (its subscribe message takes any of them). */
interface FiltersByChannel {
  trades: StreamTradeFilters;
  fills: StreamFillFilters;
  lifecycle: StreamLifecycleFilters;
  prices: StreamPriceFilters;
  book: StreamBookFilters;
  signals: StreamSignalFilters;
  copy: StreamCopyFilters;
  strategy: StreamStrategyFilters;
}
/** A channel's filters; a channel added to the document without an entry above fails to compile here. */
export type StreamFilters<C extends StreamChannel> = FiltersByChannel[C];
/** The data messages of a channel (`trade` for `trades`); control messages are handled by the stream. */
export type StreamMessage<C extends StreamChannel> = Extract<
  Exclude<StreamServerMessage, StreamSubscribed | StreamHeartbeat | StreamError>,
  { channel: C }
>;
export type StreamErrorCode = StreamError['code'];

export interface StreamOptions<C extends StreamChannel> {
  channel: C;
  filters?: StreamFilters<C>;
  /** A message's `cursor`: the stream starts right after it. Without one it starts live (the log's end). */
  cursor?: string;
  /** Stops the stream (the iterator returns); `break` out of the loop does the same. */
  signal?: AbortSignal;
  /** Silence (not even a heartbeat) after which the connection counts as dead (default 45 s, the service's STREAM_IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
  reconnect?: Partial<ReconnectOptions>;
}

export interface ReconnectOptions {
  /** Failed connection attempts in a row before the stream gives up with TapelineConnectionError (default 10). */
  maxAttempts: number;
  /** First backoff step (default 500 ms); doubles per failed attempt. */
  baseDelayMs: number;
  /** Longest backoff step (default 30 s). */
  maxDelayMs: number;
}

export const DEFAULT_RECONNECT: ReconnectOptions = { maxAttempts: 10, baseDelayMs: 500, maxDelayMs: 30_000 };
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;

/** Stream errors a reconnect with the cursor recovers from. */
const RESUMABLE: ReadonlySet<StreamErrorCode> = new Set(['slow_consumer', 'unavailable', 'idle_timeout']);

/** The stream ended with an error a reconnect cannot fix; decide on `code`. */
export class TapelineStreamError extends TapelineError {
  override name = 'TapelineStreamError';
  constructor(
    readonly code: StreamErrorCode,
    message: string,
    /** The HTTP status of a refusal before the stream started, null for an `error` message in the stream. */
    readonly status: number | null = null,
    /** The parameter at fault (bad_request, not_found), when the service named it. */
    readonly parameter: string | null = null,
  ) {
    super(`${code}: ${message}`);
  }
}

export function isStreamError<C extends StreamErrorCode>(error: unknown, code?: C): error is TapelineStreamError & { code: C } {
  return error instanceof TapelineStreamError && (code === undefined || error.code === code);
}

/** The stream code of an HTTP refusal (the service's own mapping, services/streams/stream-errors.ts). */
const CODE_BY_STATUS: Record<number, StreamErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  410: 'cursor_expired',
  429: 'limit_reached',
};

/** What the client lends the stream. */
export interface StreamTransport {
  baseUrl: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
  /** Injected for tests; by default a timer that close() clears (so a closed stream holds no process open). */
  sleep?: (ms: number) => Promise<void>;
  random: () => number;
}

/** How long to wait before the next connection (null: the backoff), when one ended without throwing. */
type Ending = { retryAfterMs: number | null };

export class TapelineStream<C extends StreamChannel> implements AsyncIterable<StreamMessage<C>> {
  private position: string | undefined;
  private readonly stopper = new AbortController();
  private iterated = false;
  /** Whether the current connection was answered with `subscribed` (it worked: the backoff starts over). */
  private subscribed = false;
  private readonly reconnect: ReconnectOptions;
  private readonly idleTimeoutMs: number;
  /** Connections made, the first included (a reconnect count for callers and tests). */
  connections = 0;

  constructor(
    private readonly transport: StreamTransport,
    private readonly options: StreamOptions<C>,
  ) {
    this.position = options.cursor;
    this.reconnect = { ...DEFAULT_RECONNECT, ...options.reconnect };
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const signal = options.signal;
    if (signal?.aborted) this.stopper.abort();
    else signal?.addEventListener('abort', () => this.stopper.abort(), { once: true });
  }

  /** The cursor to resume from: that of the last message handed out (or heartbeat), else where the stream started. */
  get cursor(): string | undefined {
    return this.position;
  }

  /** Ends the stream and its connection; a pending `next()` returns done. */
  close(): void {
    this.stopper.abort();
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamMessage<C>> {
    if (this.iterated) throw new TypeError('a stream can be iterated once; open another with client.stream() and its cursor');
    this.iterated = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<StreamMessage<C>> {
    let failures = 0;
    try {
      while (!this.stopper.signal.aborted) {
        let ending: Ending;
        let failure: unknown;
        const connection = new AbortController();
        const stop = () => connection.abort();
        this.stopper.signal.addEventListener('abort', stop, { once: true });
        try {
          ending = yield* this.connect(connection);
        } catch (error) {
          if (this.stopper.signal.aborted) return;
          if (error instanceof TapelineStreamError) throw error;
          failure = error;
          ending = { retryAfterMs: null };
        } finally {
          this.stopper.signal.removeEventListener('abort', stop);
          connection.abort();
        }
        if (this.stopper.signal.aborted) return;
        failures = this.subscribed ? 0 : failures + 1;
        if (failures >= this.reconnect.maxAttempts)
          throw new TapelineConnectionError(
            `stream ${this.options.channel}: ${failures} connection attempts in a row failed; resume later with the cursor`,
            failure,
          );
        await this.pause(ending.retryAfterMs ?? this.backoffMs(failures));
      }
    } finally {
      this.stopper.abort();
    }
  }

  /** Capped exponential backoff with full jitter: up to baseDelayMs after a working connection or one failure, doubling per further failure. */
  private backoffMs(failures: number): number {
    const { baseDelayMs, maxDelayMs } = this.reconnect;
    return Math.floor(this.transport.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, failures - 1)));
  }

  /** The client's sleep, cut short by close(), break or the caller's signal. */
  private async pause(ms: number): Promise<void> {
    const signal = this.stopper.signal;
    if (signal.aborted) return;
    let stopped!: () => void;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const abort = new Promise<void>((resolve) => (stopped = resolve));
    signal.addEventListener('abort', stopped, { once: true });
    const slept = this.transport.sleep ? this.transport.sleep(ms) : new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    try {
      await Promise.race([slept, abort]);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stopped);
    }
  }

  private url(): string {
    const query = new URLSearchParams({ channel: this.options.channel });
    for (const [name, value] of Object.entries(this.options.filters ?? {}))
      if (value !== undefined && value !== null) query.set(name, String(value));
    return `${this.transport.baseUrl}/stream/sse?${query}`;
  }

  /** One connection: yields its data messages; returns how it ended, throws what must not be retried. */
  private async *connect(connection: AbortController): AsyncGenerator<StreamMessage<C>, Ending> {
    this.connections++;
    this.subscribed = false;
    const headers: Record<string, string> = { ...this.transport.headers, accept: 'text/event-stream' };
    if (this.position !== undefined) headers['last-event-id'] = this.position;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const watch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(new Error(`no message for ${this.idleTimeoutMs} ms`)), this.idleTimeoutMs);
    };
    watch();
    try {
      const response = await this.transport.fetch(this.url(), { headers, signal: connection.signal });
      if (!response.ok) {
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'), Date.now());
        const text = await response.text();
        if (response.status === 429 || response.status >= 500) {
          // The per-key connection cap can still count the connection just dropped, and a 5xx is
          // the service's trouble: both are retried with the cursor.
          return { retryAfterMs: retryAfter === null ? null : retryAfter * 1000 };
        }
        const envelope = parseJson(text) as { error?: string } | undefined;
        const message = envelope?.error ?? (text.slice(0, 200) || response.statusText);
        throw new TapelineStreamError(
          CODE_BY_STATUS[response.status] ?? 'bad_request',
          message,
          response.status,
          /^([\w.-]+): /.exec(message)?.[1] ?? null,
        );
      }
      if (!response.body) throw new TapelineConnectionError('the stream answer has no body');
      for await (const data of sseData(response.body)) {
        watch();
        const message = parseJson(data) as StreamServerMessage | undefined;
        if (!message || typeof message !== 'object' || typeof message.type !== 'string')
          throw new TapelineConnectionError(`stream ${this.options.channel}: an event that is not a stream message`);
        switch (message.type) {
          case 'subscribed':
            this.position = message.cursor;
            this.subscribed = true;
            break;
          case 'heartbeat':
            this.position = message.cursor;
            break;
          case 'error':
            if (RESUMABLE.has(message.code)) return { retryAfterMs: null };
            throw new TapelineStreamError(message.code, message.message, null, message.parameter);
          default:
            // Handed out is delivered: a reconnect can only happen once the caller asks for the next one.
            this.position = message.cursor;
            yield message as StreamMessage<C>;
        }
      }
      return { retryAfterMs: null };
    } finally {
      clearTimeout(idle);
    }
  }
}

/** The `data` of each event of a text/event-stream body (the WHATWG event stream format). */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.search(/\r\n|\r|\n/); end >= 0; end = buffer.search(/\r\n|\r|\n/)) {
        // A lone \r at the end of the buffer may be the first half of \r\n: wait for the next chunk.
        if (buffer[end] === '\r' && end === buffer.length - 1) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
