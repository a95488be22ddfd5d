/**
 * CLOB market-channel websocket client.
 *
 * - Tokens are split into shards (one connection each) so thousands of tokens are covered without
 *   one oversized subscription; new tokens open new shards, existing shards are left alone.
 * - Each connection sends a text PING every ~10 s (upstream drops silent clients); a connection that
 *   says nothing at all (not even PONG) for the idle timeout is dead and is dropped. A dropped
 *   connection reconnects with exponential backoff and equal jitter, then resubscribes; a resubscribe
 *   brings fresh `book` snapshots, so nothing from the outage is left half-applied. The backoff starts
 *   over only after a connection stayed up for the stable interval: a server that accepts, sends a
 *   frame and closes is retried with growing delays.
 * - `book` replaces the local book; `price_change` deltas (size 0 deletes a level, one frame may
 *   carry both tokens, frames may be arrays) are applied and checked against upstream's best
 *   bid/ask; a mismatch is a gap and the token is resynced from REST `/books`.
 * - Events are buffered for a few tens of ms and produced in one batch per topic, and rebuilt books
 *   are published at most once per flush per token, so a burst costs one log append, not hundreds.
 * - Events leave the buffer only once published. A failed publish is retried with backoff; after
 *   the configured attempts the events are dead-lettered with the reason (and kept until that
 *   succeeds). While more than `maxBufferedEvents` wait, the shards are paused (closed) and resume,
 *   resubscribing for fresh books, once the backlog is published.
 */
import WebSocket from 'ws';
import type { Logger } from '../logger.js';
import type { BookSnapshot, DeadLetter, Source } from '../events/types.js';
import { type BackoffPolicy, backoffMs } from '../shared/backoff.js';
import { LocalBooks } from './book-state.js';
import { midpointTick, normalizeWsMarketMessage, wsFrameMessages, type WsMarketMessage } from './normalize-clob.js';
import type { EventOfStream, EventPublisher, EventStreamName } from '../events/publisher.js';
import { FRESHNESS_TARGETS_MS, type SourceHealth } from './source-health.js';
import type { UpstreamReachability } from './upstream-reachability.js';

const WS_SOURCE = 'clob.ws';
/** Retries of a failed publish: 200 ms doubling to 10 s. */
const PUBLISH_RETRY: BackoffPolicy = { baseMs: 200, maxMs: 10_000, jitter: 'none' };

export interface MarketStreamOptions {
  url: string;
  publisher: EventPublisher;
  health: SourceHealth;
  logger: Logger;
  /** REST resync: fetches (and publishes) the current books of these tokens. */
  resync: (assetIds: string[]) => Promise<BookSnapshot[]>;
  /** Books the stream published itself, so the REST poll skips them. */
  onBookPublished?: (assetId: string, hash: string) => void;
  /** A `new_market` announced tokens we should follow. */
  onNewMarket?: (assetIds: string[]) => void;
  /** Told whether the websocket could be reached at each connection attempt. */
  reachability?: UpstreamReachability;
  /** Upstream label for events from this stream (the simulator's websocket says so in its URL host). */
  source: Source;
  shardSize?: number;
  pingIntervalMs?: number;
  flushIntervalMs?: number;
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  /** No message (PONG included) for this long drops the connection (default 30 s). */
  idleTimeoutMs?: number;
  /** A connection up this long resets the reconnect backoff (default 60 s). */
  stableAfterMs?: number;
  /** Publish attempts before buffered events are dead-lettered (default 5). */
  publishAttempts?: number;
  /** Buffered events above which the shards pause until the backlog is published (default 200,000). */
  maxBufferedEvents?: number;
  /** Delay before publish retry `attempt` (tests shrink it). */
  publishRetryMs?: (attempt: number) => number;
  clock?: () => number;
  /** Monotonic ms for publish retries (performance.now; tests pass one that lags the timers). */
  monotonic?: () => number;
  random?: () => number;
}

export interface StreamStats {
  frames: number;
  messages: number;
  gaps: number;
  resyncs: number;
  reconnects: number;
  dead_lettered: number;
  /** Connections dropped for saying nothing for the idle timeout. */
  idle_timeouts: number;
  publish_failures: number;
  /** Events dead-lettered because publishing them kept failing. */
  publish_dead_lettered: number;
}

type Pending = { [K in EventStreamName]?: EventOfStream<K>[] };

/** Events waiting to be published, oldest first; an entry leaves only once its publish succeeded. */
interface OutboxEntry {
  topic: EventStreamName | 'deadLetters';
  events: unknown[];
  attempts: number;
  /** After a failure: not tried again before this (monotonic ms), however often frames flush. */
  retryAt?: number;
}

export class MarketStream {
  readonly books = new LocalBooks();
  readonly stats: StreamStats = {
    frames: 0,
    messages: 0,
    gaps: 0,
    resyncs: 0,
    reconnects: 0,
    dead_lettered: 0,
    idle_timeouts: 0,
    publish_failures: 0,
    publish_dead_lettered: 0,
  };
  private readonly outbox: OutboxEntry[] = [];
  private paused = false;
  private readonly shards: Shard[] = [];
  private readonly covered = new Set<string>();
  private pending: Pending = {};
  private deadLetters: DeadLetter[] = [];
  private readonly dirtyBooks = new Set<string>();
  private readonly toResync = new Set<string>();
  private flushTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: MarketStreamOptions) {
    options.health.register(WS_SOURCE, FRESHNESS_TARGETS_MS.ticks);
  }

  private get now(): number {
    return (this.options.clock ?? Date.now)();
  }

  /** Follows these tokens too (already-covered ones are ignored); new tokens go to new shards. */
  follow(tokens: string[]): void {
    if (this.stopped) return;
    const fresh = tokens.filter((t) => !this.covered.has(t));
    const size = this.options.shardSize ?? 500;
    for (let i = 0; i < fresh.length; i += size) {
      const shardTokens = fresh.slice(i, i + size);
      for (const token of shardTokens) this.covered.add(token);
      const shard = new Shard(this, this.shards.length, shardTokens);
      this.shards.push(shard);
      shard.connect();
    }
  }

  get shardCount(): number {
    return this.shards.length;
  }

  /** Resolves when every shard has an open connection. */
  async connected(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.opened));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const shard of this.shards) shard.close();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.flushing;
    await this.flush();
    // Last chance for a backlog: retry at once until published or dead-lettered.
    for (let round = 0; this.outbox.length > 0 && round < this.publishAttempts + 2; round++) await this.drainOutbox(true);
    if (this.outbox.length > 0)
      this.options.logger.error({ events: this.bufferedEvents }, 'websocket events could not be published or dead-lettered before stop');
  }

  /** Events buffered and not yet published (nor dead-lettered). */
  get bufferedEvents(): number {
    return this.outbox.reduce((sum, entry) => sum + entry.events.length, 0);
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Test hook: drops every connection as if the network failed. */
  dropConnections(): void {
    for (const shard of this.shards) shard.terminate();
  }

  // ---- called by shards ----

  get isStopped(): boolean {
    return this.stopped;
  }

  get settings() {
    return {
      url: this.options.url,
      pingIntervalMs: this.options.pingIntervalMs ?? 10_000,
      reconnectBaseMs: this.options.reconnectBaseMs ?? 500,
      reconnectMaxMs: this.options.reconnectMaxMs ?? 30_000,
      idleTimeoutMs: this.options.idleTimeoutMs ?? 30_000,
      stableAfterMs: this.options.stableAfterMs ?? 60_000,
      random: this.options.random ?? Math.random,
      logger: this.options.logger,
      reachability: this.options.reachability,
    };
  }

  private get publishAttempts(): number {
    return this.options.publishAttempts ?? 5;
  }

  idleTimedOut(shard: number): void {
    this.stats.idle_timeouts += 1;
    this.options.logger.warn({ shard }, 'market websocket silent past the idle timeout; reconnecting');
  }

  heartbeat(): void {
    this.options.health.succeeded(WS_SOURCE, 0, 0, this.now);
  }

  disconnected(reason: string): void {
    this.stats.reconnects += 1;
    this.options.health.failed(WS_SOURCE, new Error(`market websocket disconnected: ${reason}`));
  }

  handleFrame(text: string): void {
    const arrival = this.now;
    this.stats.frames += 1;
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      this.deadLetter(text, 'websocket frame is not JSON', arrival);
      this.scheduleFlush();
      return;
    }
    let published = 0;
    for (const raw of wsFrameMessages(frame)) {
      this.stats.messages += 1;
      const result = normalizeWsMarketMessage(raw, this.options.source, arrival);
      if (!result.ok) {
        this.deadLetter(JSON.stringify(raw), result.reason, arrival);
        continue;
      }
      published += this.apply(result.value);
    }
    this.options.health.succeeded(WS_SOURCE, published, 0, arrival);
    this.scheduleFlush();
  }

  private apply(message: WsMarketMessage): number {
    switch (message.type) {
      case 'book': {
        this.books.applySnapshot(message.book);
        this.dirtyBooks.delete(message.book.asset_id);
        this.queue('bookSnapshots', message.book);
        const mid = midpointTick(message.book);
        if (mid) this.queue('priceTicks', mid);
        this.options.onBookPublished?.(message.book.asset_id, message.book.hash);
        return 1;
      }
      case 'price_change': {
        for (const delta of message.deltas) this.queue('bookDeltas', delta);
        for (const [assetId, outcome] of this.books.applyFrame(message.deltas)) {
          if (outcome === 'applied') this.dirtyBooks.add(assetId);
          else {
            if (outcome === 'gap') this.stats.gaps += 1;
            this.dirtyBooks.delete(assetId);
            this.toResync.add(assetId);
          }
        }
        return message.deltas.length;
      }
      case 'last_trade_price':
        this.books.setLastTradePrice(message.tick.asset_id, message.tick.price);
        this.queue('priceTicks', message.tick);
        return 1;
      case 'best_bid_ask':
        this.queue('priceTicks', message.tick);
        return 1;
      case 'tick_size_change':
        this.books.setTickSize(message.assetId, message.newTickSize);
        // The stored book carries the tick size: republish it (same id and time, newer version).
        if (this.books.hashOf(message.assetId) === null) return 0;
        this.dirtyBooks.add(message.assetId);
        return 1;
      case 'new_market':
        this.options.onNewMarket?.(message.assetIds);
        return 0;
      case 'market_resolved':
        this.queue('marketResolutions', message.resolution);
        return 1;
      case 'ignored':
        return 0;
    }
  }

  private queue<K extends EventStreamName>(topic: K, event: EventOfStream<K>): void {
    this.pending[topic] ??= [];
    (this.pending[topic] as EventOfStream<K>[]).push(event);
  }

  private deadLetter(raw: string, reason: string, at: number): void {
    this.stats.dead_lettered += 1;
    this.deadLetters.push({ stage: 'ingest', source: this.options.source, origin: 'clob-ws/market', reason, raw, at_ms: at });
  }

  private scheduleFlush(delayMs = this.options.flushIntervalMs ?? 50): void {
    if (this.flushTimer || this.stopped) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flushing = this.flushing
        .then(() => this.flush())
        .catch((error) => this.options.logger.error({ err: error }, 'websocket flush failed'));
    }, delayMs);
  }

  private async flush(): Promise<void> {
    const now = this.now;
    for (const assetId of this.dirtyBooks) {
      const snapshot = this.books.snapshot(assetId, now);
      if (!snapshot) continue;
      this.queue('bookSnapshots', snapshot);
      const mid = midpointTick(snapshot);
      if (mid) this.queue('priceTicks', mid);
      this.options.onBookPublished?.(assetId, snapshot.hash);
    }
    this.dirtyBooks.clear();
    const resync = [...this.toResync];
    // Moved to the outbox, in arrival order within a topic (one produce per topic per flush).
    if (this.deadLetters.length > 0) this.outbox.push({ topic: 'deadLetters', events: this.deadLetters, attempts: 0 });
    for (const [topic, events] of Object.entries(this.pending) as [EventStreamName, unknown[]][]) {
      if (events.length > 0) this.outbox.push({ topic, events, attempts: 0 });
    }
    this.pending = {};
    this.deadLetters = [];
    this.toResync.clear();
    await this.drainOutbox();
    if (resync.length > 0) await this.resync(resync);
  }

  /** Publishes the outbox oldest first; stops at the first failure and retries later (or dead-letters). */
  private async drainOutbox(force = false): Promise<void> {
    while (this.outbox.length > 0) {
      const entry = this.outbox[0]!;
      const waitMs = entry.retryAt === undefined ? 0 : entry.retryAt - this.monotonic();
      if (!force && waitMs > 0) {
        // Not due yet. A timer fires by the loop's cached millisecond clock, which can be up to a
        // millisecond behind performance.now(): without a timer armed here, a retry that woke early
        // would leave the backlog unpublished until the next frame - forever once the market is quiet.
        this.armRetry(waitMs);
        return;
      }
      try {
        await this.options.publisher.publish(entry.topic, entry.events as never[]);
        this.outbox.shift();
      } catch (error) {
        entry.attempts += 1;
        this.stats.publish_failures += 1;
        const message = error instanceof Error ? error.message : String(error);
        if (entry.topic !== 'deadLetters' && entry.attempts >= this.publishAttempts) {
          // Given up on this topic for now: the events go to the dead-letter topic with the reason.
          const at = this.now;
          this.stats.publish_dead_lettered += entry.events.length;
          this.outbox[0] = {
            topic: 'deadLetters',
            attempts: 0,
            events: entry.events.map(
              (event): DeadLetter => ({
                stage: 'ingest',
                source: this.options.source,
                origin: `clob-ws/${entry.topic}`,
                reason: `publish to ${entry.topic} failed ${entry.attempts} times: ${message}`,
                raw: JSON.stringify(event),
                at_ms: at,
              }),
            ),
          };
          this.options.logger.error(
            { topic: entry.topic, events: entry.events.length, err: error },
            'websocket events dead-lettered after failed publishes',
          );
          continue;
        }
        this.options.health.degraded(WS_SOURCE, `publishing websocket events failed (${this.bufferedEvents} buffered): ${message}`);
        this.options.logger.warn({ topic: entry.topic, attempt: entry.attempts, err: error }, 'websocket publish failed; retrying');
        this.pauseIfOverloaded();
        const delay = this.options.publishRetryMs?.(entry.attempts) ?? backoffMs(PUBLISH_RETRY, entry.attempts);
        entry.retryAt = this.monotonic() + delay;
        this.armRetry(delay);
        return;
      }
    }
    if (this.options.health.isDegraded(WS_SOURCE)) this.options.health.recovered(WS_SOURCE);
    if (this.paused) this.resume();
  }

  private monotonic(): number {
    return (this.options.monotonic ?? performance.now.bind(performance))();
  }

  /** One pending retry at a time; a retry that finds the entry not yet due re-arms it. */
  private armRetry(delayMs: number): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.flushing = this.flushing
        .then(() => this.drainOutbox())
        .catch((e) => this.options.logger.error({ err: e }, 'websocket retry failed'));
    }, Math.ceil(delayMs));
    this.retryTimer.unref();
  }

  /** Too much waiting to be published: stop reading until it is (a resubscribe then brings fresh books). */
  private pauseIfOverloaded(): void {
    if (this.paused || this.bufferedEvents <= (this.options.maxBufferedEvents ?? 200_000)) return;
    this.paused = true;
    this.options.logger.error({ events: this.bufferedEvents }, 'websocket paused: too many events waiting to be published');
    for (const shard of this.shards) shard.pause();
  }

  private resume(): void {
    this.paused = false;
    this.options.logger.info('websocket resumed: backlog published');
    for (const shard of this.shards) shard.resume();
  }

  private async resync(assetIds: string[]): Promise<void> {
    this.stats.resyncs += 1;
    try {
      const books = await this.options.resync(assetIds);
      for (const book of books) this.books.applySnapshot(book);
    } catch (error) {
      // Left stale: the next price_change for these tokens asks for a resync again.
      this.options.logger.warn({ err: error, tokens: assetIds.length }, 'book resync failed');
    }
  }
}

/** One websocket connection covering a fixed set of tokens. */
class Shard {
  private socket: WebSocket | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private stableTimer: NodeJS.Timeout | null = null;
  private attempts = 0;
  /** When anything (a frame or PONG) last arrived on the current connection (monotonic ms). */
  private lastHeard = 0;
  private paused = false;
  private resolveOpened!: () => void;
  opened: Promise<void>;

  constructor(
    private readonly stream: MarketStream,
    private readonly index: number,
    private readonly tokens: string[],
  ) {
    this.opened = new Promise((resolve) => (this.resolveOpened = resolve));
  }

  connect(): void {
    const { url, pingIntervalMs, idleTimeoutMs, stableAfterMs, logger, reachability } = this.stream.settings;
    const socket = new WebSocket(url);
    this.socket = socket;
    this.lastHeard = performance.now();
    let opened = false;
    socket.on('open', () => {
      opened = true;
      reachability?.succeeded('ws');
      socket.send(JSON.stringify({ assets_ids: this.tokens, type: 'market', custom_feature_enabled: true }));
      this.lastHeard = performance.now();
      const checkEveryMs = Math.min(pingIntervalMs, Math.max(50, Math.floor(idleTimeoutMs / 3)));
      let lastCheck = performance.now();
      this.pingTimer = setInterval(() => {
        if (socket.readyState !== WebSocket.OPEN) return;
        const now = performance.now();
        // This process was stalled (the check ran far too late): frames may be waiting unread, so
        // the silence is ours, not the server's - start the window again.
        if (now - lastCheck > idleTimeoutMs / 2) this.lastHeard = now;
        lastCheck = now;
        // Liveness: a connection that answers nothing, not even PONG, is dead however open it looks.
        if (now - this.lastHeard > idleTimeoutMs) {
          // Timers run before the event loop reads sockets: frames that arrived in time may still be
          // unread. Decide after this turn's I/O (setImmediate), so a busy process never drops a
          // connection, and the frames in its buffer, that was talking.
          setImmediate(() => {
            if (socket.readyState !== WebSocket.OPEN || performance.now() - this.lastHeard <= idleTimeoutMs) return;
            this.stream.idleTimedOut(this.index);
            socket.terminate();
          });
          return;
        }
        socket.send('PING');
      }, checkEveryMs);
      // Only a connection that stays up resets the backoff.
      this.stableTimer = setTimeout(() => (this.attempts = 0), stableAfterMs);
      this.resolveOpened();
      logger.debug({ shard: this.index, tokens: this.tokens.length }, 'market websocket subscribed');
    });
    socket.on('message', (data, isBinary) => {
      this.lastHeard = performance.now();
      const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString();
      if (text === 'PONG' || text === 'pong') this.stream.heartbeat();
      else this.stream.handleFrame(text);
    });
    // A connection that could not be made (refused, DNS) is told once by the reachability log; a
    // drop of an open one is not unreachability.
    socket.on('error', (error) => {
      if (!opened && reachability?.failed('ws', error)) return;
      logger.warn({ err: error, shard: this.index }, 'market websocket error');
    });
    socket.on('close', (code) => {
      if (this.pingTimer) clearInterval(this.pingTimer);
      if (this.stableTimer) clearTimeout(this.stableTimer);
      this.pingTimer = null;
      this.stableTimer = null;
      if (this.stream.isStopped || this.paused) return;
      this.stream.disconnected(`shard ${this.index} closed with code ${code}`);
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    const { reconnectBaseMs, reconnectMaxMs, random } = this.stream.settings;
    this.attempts += 1;
    const delay = backoffMs({ baseMs: reconnectBaseMs, maxMs: reconnectMaxMs, jitter: 'equal' }, this.attempts, random);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stream.isStopped && !this.paused) this.connect();
    }, delay);
  }

  terminate(): void {
    this.socket?.terminate();
  }

  /** Closes without reconnecting until resume(). */
  pause(): void {
    this.paused = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.socket?.terminate();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (!this.stream.isStopped) this.connect();
  }

  close(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.stableTimer) clearTimeout(this.stableTimer);
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.socket?.removeAllListeners('message');
    this.socket?.close();
    this.socket?.terminate();
  }
}
