/**
 * GET /v1/stream as a WebSocket: several subscriptions per connection, the same messages as SSE.
 * The key comes as `Authorization: Bearer` on the upgrade or as a first `auth` message, never in the
 * URL (URLs end up in logs and proxies): a URL with any query parameter is refused before the upgrade.
 * A client message that is not understood is answered with an `error` naming the field, and the
 * connection stays open. Pings every STREAM_HEARTBEAT_MS; no pong, or no subscription, for
 * STREAM_IDLE_TIMEOUT_MS closes it (4000); a slow consumer is told and closed (4008).
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { openMetered } from '../access.js';
import { type AuthThrottle, authenticateKey, bearerKey, clientAddress, type OwnerCache } from '../auth.js';
import { failure } from '../../services/http/envelope.js';
import { ApiError } from '../../services/http/errors.js';
import type { StreamError, StreamServerMessage } from '../../services/http/types.generated.js';
import type { Meter } from '../../services/access/meter.js';
import type { TierThresholds } from '../../services/access/tiers.js';
import type { KeyOwner } from '../../services/control/accounts.js';
import { channelNamed, channelNames, type ChannelName } from '../../services/streams/channels.js';
import { streamError, streamErrorOf } from './stream-errors.js';
import { messageText } from '../../services/streams/message-text.js';
import type { StreamService } from '../../services/streams/stream-service.js';
import { corked, type Subscription } from '../../services/streams/subscription.js';

export interface WebSocketDependencies {
  service: StreamService;
  owners: OwnerCache;
  throttle: AuthThrottle;
  meter: Meter;
  thresholds: TierThresholds;
  trustProxyHops: number;
}

const PATH = '/v1/stream';
/** A client frame larger than this is refused by the ws library (close 1009). */
const MAX_CLIENT_FRAME_BYTES = 16 * 1024;
const SUBSCRIPTION_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const KEY_PARAMETERS = new Set(['key', 'api_key', 'apikey', 'token', 'access_token', 'authorization']);
/**
 * Connections opened without a key hold a socket until their auth message or STREAM_AUTH_TIMEOUT_MS,
 * before any per-key cap can count them: so they are bounded per address and in all.
 */
export const PENDING_AUTH_PER_ADDRESS = 8;
const PENDING_AUTH_IN_ALL = 1_000;

/** Counts the connections still to authenticate; `take` refuses past the bounds, its release runs once. */
function pendingAuthentications() {
  const byAddress = new Map<string, number>();
  let inAll = 0;
  return (address: string): (() => void) => {
    const mine = byAddress.get(address) ?? 0;
    if (mine >= PENDING_AUTH_PER_ADDRESS || inAll >= PENDING_AUTH_IN_ALL)
      throw ApiError.rateLimited(
        `too many connections waiting to authenticate (${mine >= PENDING_AUTH_PER_ADDRESS ? `${PENDING_AUTH_PER_ADDRESS} from this address` : `${PENDING_AUTH_IN_ALL} in all`}): authenticate the open ones, or send Authorization: Bearer on the upgrade`,
        1,
      );
    byAddress.set(address, mine + 1);
    inAll++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inAll--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left > 0) byAddress.set(address, left);
      else byAddress.delete(address);
    };
  };
}

const CLOSE_REFUSED = 1008;
const CLOSE_IDLE = 4000;
const CLOSE_SLOW_CONSUMER = 4008;

/** The node `upgrade` listener: answers /v1/stream, refuses everything else. */
export function streamUpgrade(deps: WebSocketDependencies) {
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
  const takePending = pendingAuthentications();
  return async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (url.pathname.toLowerCase() !== PATH) throw ApiError.notFound('no such route');
      for (const name of url.searchParams.keys()) {
        if (KEY_PARAMETERS.has(name.toLowerCase()))
          throw ApiError.badRequest(
            `${name}: an API key is never accepted in the URL; send Authorization: Bearer <key> or an auth message`,
          );
        throw ApiError.badRequest(`${name}: /v1/stream takes no query parameters; subscribe with messages`);
      }
      let owner: KeyOwner | null = null;
      let release: (() => void) | null = null;
      if (request.headers.authorization !== undefined) {
        const key = bearerKey(request.headers.authorization);
        if (!key) throw ApiError.unauthorized('malformed Authorization header: expected Bearer <key>');
        const verified = await authenticateKey(deps.owners, deps.throttle, clientAddress(request, deps.trustProxyHops), key);
        if ('error' in verified) throw verified.error;
        owner = verified.owner;
        release = deps.service.limits.openConnection(owner.key_id);
      }
      const releasePending = owner ? null : takePending(clientAddress(request, deps.trustProxyHops));
      let upgraded = false;
      // A handshake the ws library refuses never reaches the callback: the slots go back with the socket.
      socket.once('close', () => {
        if (!upgraded) release?.();
        releasePending?.();
      });
      server.handleUpgrade(request, socket, head, (ws) => {
        upgraded = true;
        new SocketSession(ws, socket, deps, request, owner, release, releasePending).begin();
      });
    } catch (error) {
      refuseUpgrade(socket, error);
    }
  };
}

function refuseUpgrade(socket: Duplex, error: unknown): void {
  const apiError = error instanceof ApiError ? error : new ApiError(500, 'INTERNAL_ERROR', 'internal error');
  const body = JSON.stringify(failure(apiError.code, apiError.message, apiError.reason));
  const headers = [
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(apiError.retryAfterSeconds !== undefined ? [`Retry-After: ${apiError.retryAfterSeconds}`] : []),
    'Connection: close',
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

class SocketSession {
  private readonly subscriptions = new Map<string, Subscription>();
  private authenticating = false;
  private lastPongAt = Date.now();
  private lastBusyAt = Date.now();
  private counter = 0;
  private closed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private untrack: () => void = () => undefined;
  private handling: Promise<void> = Promise.resolve();

  constructor(
    private readonly ws: WebSocket,
    /** The connection under `ws` (the one handed to handleUpgrade), corked around a run of sends. */
    private readonly socket: Duplex,
    private readonly deps: WebSocketDependencies,
    private readonly request: IncomingMessage,
    private owner: KeyOwner | null,
    private releaseConnection: (() => void) | null,
    private readonly releasePending: (() => void) | null,
  ) {}

  begin(): void {
    const { settings } = this.deps.service;
    this.untrack = this.deps.service.track(() => this.close(1001, 'server shutting down'));
    // One message at a time, in order: a subscribe sent right behind its auth must find the key verified.
    this.ws.on('message', (data, isBinary) => {
      const text = isBinary ? null : data.toString();
      this.handling = this.handling.then(() => this.onMessage(text)).catch(() => undefined);
    });
    this.ws.on('pong', () => (this.lastPongAt = Date.now()));
    this.ws.on('close', () => this.cleanUp());
    this.ws.on('error', () => this.cleanUp());
    if (!this.owner) {
      this.timers.push(
        setTimeout(() => {
          if (!this.owner) this.fail(streamError('unauthorized', `no auth message within ${settings.authTimeoutMs} ms`), CLOSE_REFUSED);
        }, settings.authTimeoutMs),
      );
    }
    this.timers.push(setInterval(() => this.tick(), settings.heartbeatMs));
  }

  private tick(): void {
    const { idleTimeoutMs } = this.deps.service.settings;
    const now = Date.now();
    if (this.subscriptions.size > 0) this.lastBusyAt = now;
    if (now - this.lastPongAt > idleTimeoutMs) this.close(CLOSE_IDLE, 'no pong');
    else if (now - this.lastBusyAt > idleTimeoutMs)
      this.fail(streamError('idle_timeout', `no subscription for ${idleTimeoutMs} ms (STREAM_IDLE_TIMEOUT_MS)`), CLOSE_IDLE);
    else this.ws.ping();
  }

  private send(message: StreamServerMessage): void {
    if (!this.closed) this.ws.send(messageText(message));
  }

  private async onMessage(text: string | null): Promise<void> {
    if (this.closed) return;
    let message: Record<string, unknown>;
    try {
      const parsed: unknown = text === null ? null : JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      message = parsed as Record<string, unknown>;
    } catch {
      return this.send(streamError('bad_request', 'message: a JSON object (text frame) is expected', 'message'));
    }
    try {
      switch (message.type) {
        case 'auth':
          return await this.authenticate(message);
        case 'subscribe':
          return await this.subscribe(message);
        case 'unsubscribe':
          return this.unsubscribe(message);
        default:
          throw ApiError.badRequest('type: must be auth, subscribe or unsubscribe');
      }
    } catch (error) {
      const subscription = typeof message.subscription === 'string' ? message.subscription : null;
      this.send(streamErrorOf(error, subscription));
    }
  }

  private async authenticate(message: Record<string, unknown>): Promise<void> {
    if (this.owner || this.authenticating) throw ApiError.badRequest('type: this connection is authenticated already');
    onlyFields(message, ['type', 'key']);
    if (typeof message.key !== 'string' || message.key.length === 0 || message.key.length > 200)
      throw ApiError.badRequest('key: the API key');
    this.authenticating = true;
    try {
      const verified = await authenticateKey(
        this.deps.owners,
        this.deps.throttle,
        clientAddress(this.request, this.deps.trustProxyHops),
        message.key,
      );
      if ('error' in verified) return this.fail(streamErrorOf(verified.error, null), CLOSE_REFUSED);
      try {
        this.releaseConnection = this.deps.service.limits.openConnection(verified.owner.key_id);
      } catch (error) {
        return this.fail(streamErrorOf(error, null), CLOSE_REFUSED);
      }
      this.owner = verified.owner;
      this.releasePending?.();
    } finally {
      this.authenticating = false;
    }
  }

  private async subscribe(message: Record<string, unknown>): Promise<void> {
    const owner = this.owner;
    if (!owner) throw ApiError.unauthorized('authenticate first: send {"type":"auth","key":"<key>"} or connect with Authorization: Bearer');
    onlyFields(message, ['type', 'channel', 'subscription', 'filters', 'cursor']);
    const channel = channelNamed(message.channel);
    if (!channel) throw ApiError.badRequest(`channel: unknown channel (channels: ${channelNames().join(', ')})`);
    let id: string;
    if (message.subscription === undefined) {
      do id = `s${++this.counter}`;
      while (this.subscriptions.has(id));
    } else if (typeof message.subscription !== 'string' || !SUBSCRIPTION_ID.test(message.subscription)) {
      throw ApiError.badRequest('subscription: 1-64 letters, digits, _ . or -');
    } else id = message.subscription;
    if (this.subscriptions.has(id)) throw ApiError.badRequest(`subscription: ${id} is subscribed already on this connection`);
    const filterInput = message.filters ?? {};
    if (typeof filterInput !== 'object' || filterInput === null || Array.isArray(filterInput))
      throw ApiError.badRequest('filters: an object');
    if (message.cursor !== undefined && (typeof message.cursor !== 'string' || message.cursor.length === 0 || message.cursor.length > 4096))
      throw ApiError.badRequest('cursor: a cursor string');
    const filters = await channel.parseFilters(filterInput as Record<string, unknown>, 'filters.', this.deps.service.store);
    const subscription = await openMetered(this.deps.meter, this.deps.thresholds, owner.account_id, channel.access, async () => {
      if (this.closed) return undefined;
      const opened = await this.deps.service.open({
        keyId: owner.key_id,
        accountId: owner.account_id,
        id,
        channel,
        filters,
        cursor: message.cursor as string | undefined,
        cursorParameter: 'cursor',
        sink: { send: (m) => this.send(m), bufferedBytes: () => this.ws.bufferedAmount, batch: (sends) => corked(this.socket, sends) },
        onEnd: (error) => this.ended(id, error),
      });
      if (!this.closed) return opened;
      opened.stop();
      return undefined;
    });
    if (!subscription) return;
    this.subscriptions.set(id, subscription);
    this.send({ type: 'subscribed', subscription: id, channel: channel.name as ChannelName, cursor: subscription.cursor });
    subscription.start();
  }

  private unsubscribe(message: Record<string, unknown>): void {
    onlyFields(message, ['type', 'subscription']);
    const id = message.subscription;
    const subscription = typeof id === 'string' ? this.subscriptions.get(id) : undefined;
    if (!subscription) throw ApiError.badRequest('subscription: no such subscription on this connection');
    subscription.stop();
    this.subscriptions.delete(id as string);
  }

  /** A subscription ended itself: a slow consumer closes the whole connection, other ends only it. */
  private ended(id: string, error: StreamError): void {
    this.subscriptions.delete(id);
    if (error.code !== 'slow_consumer') {
      this.send(error);
      return;
    }
    // Every subscription is told where to resume; then the close frame follows the buffered data.
    this.send(error);
    for (const other of this.subscriptions.values()) {
      other.stop();
      this.send(other.errorMessage('slow_consumer', error.message));
    }
    this.close(CLOSE_SLOW_CONSUMER, 'slow_consumer');
  }

  private fail(error: StreamError, code: number): void {
    this.send(error);
    this.close(code, error.code);
  }

  private close(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.close(code, reason);
    this.cleanUp();
    // A client that does not read its close frame either is cut after the grace STREAM_SLOW_CONSUMER_MS gives.
    setTimeout(() => this.ws.terminate(), this.deps.service.settings.slowConsumerMs).unref();
  }

  private cleanUp(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    for (const subscription of this.subscriptions.values()) subscription.stop();
    this.subscriptions.clear();
    this.releaseConnection?.();
    this.releaseConnection = null;
    this.releasePending?.();
    this.untrack();
  }
}

function onlyFields(message: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(message).find((name) => !allowed.includes(name));
  if (extra) throw ApiError.badRequest(`${extra}: not a field of a ${String(message.type)} message`);
}
