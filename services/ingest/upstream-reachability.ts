/**
 * Whether each upstream can be reached at all, told by state change: the first connection-level
 * failure (refused, DNS, timeout, reset) logs one plain warn line naming the upstream, its host, the
 * error code and what to check; repeats go to debug with the error; the first answer after them logs
 * once that it is reachable again and after how long. A refused connection or a name that does not
 * resolve says so at once; a timeout or a reset only after TRANSIENT_FAILURES in a row (a busy
 * upstream is slow now and then without being out of reach). An upstream that answers with an HTTP error is
 * reachable (the task that asked logs that failure). /v1/health reads the same state, so its issues
 * say the cause in plain words.
 */
import type { Logger } from '../logger.js';

export type UpstreamName = 'gamma' | 'clob' | 'data' | 'ws' | 'rpc';

const UPSTREAMS: Record<UpstreamName, { label: string; setting: string }> = {
  gamma: { label: "Polymarket's Gamma API", setting: 'POLYMARKET_GAMMA_URL' },
  clob: { label: "Polymarket's CLOB API", setting: 'POLYMARKET_CLOB_URL' },
  data: { label: "Polymarket's Data API", setting: 'POLYMARKET_DATA_URL' },
  ws: { label: "Polymarket's market websocket", setting: 'POLYMARKET_WS_URL' },
  rpc: { label: 'The Polygon RPC', setting: 'POLYGON_RPC_URL' },
};

/** The health view of one upstream (api/openapi.yaml Health.upstreams). */
export interface UpstreamStatus {
  upstream: UpstreamName;
  host: string;
  setting: string;
  /** Null until the first attempt to reach it. */
  reachable: boolean | null;
  unreachable_since: string | null;
  error_code: string | null;
  failed_attempts: number;
  /** One sentence for an operator, null while reachable. */
  cause: string | null;
}

interface State {
  host: string;
  tried: boolean;
  /** Transient failures (timeouts, resets) in a row not yet taken as unreachable. */
  pending: { sinceMs: number; failures: number } | null;
  down: { sinceMs: number; code: string; failures: number } | null;
}

const MAX_CAUSE_DEPTH = 6;
/** Codes that say at once that nothing answers there (no address, nothing listening, no route). */
const DEFINITE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EUNREACHABLE']);
/** Timeouts and resets in a row before an upstream is called unreachable. */
export const TRANSIENT_FAILURES = 3;
const attempts = (n: number) => `${n} failed attempt${n === 1 ? '' : 's'}`;

/**
 * The connection-level error code of a failure (ECONNREFUSED, ENOTFOUND, ETIMEDOUT, ...), found on the
 * error or its causes (fetch and viem wrap the socket error), or null when upstream answered or the
 * failure is of another kind.
 */
export function unreachableCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current != null && typeof current === 'object'; depth++) {
    const e = current as { code?: unknown; name?: unknown; status?: unknown; unreachable?: unknown; cause?: unknown };
    if (typeof e.status === 'number') return null;
    if (typeof e.unreachable === 'string') return e.unreachable;
    if (typeof e.code === 'string' && /^(E[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(e.code)) return e.code;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'ETIMEDOUT';
    current = e.cause;
  }
  return null;
}

/** The host (and port) of a URL, never its path, query or credentials (keyed RPC URLs carry keys there). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}

export class UpstreamReachability {
  private readonly states = new Map<UpstreamName, State>();

  constructor(
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  register(upstream: UpstreamName, url: string): void {
    if (!this.states.has(upstream)) this.states.set(upstream, { host: hostOf(url), tried: false, pending: null, down: null });
  }

  /** A failed attempt; returns whether it was a reachability failure (and so is logged here). */
  failed(upstream: UpstreamName, error: unknown): boolean {
    const code = unreachableCode(error);
    const state = this.states.get(upstream);
    if (code === null || !state) return false;
    if (state.down) {
      state.down.failures += 1;
      state.down.code = code;
      this.logger.debug({ upstream, host: state.host, code, failures: state.down.failures, err: error }, `${upstream} still unreachable`);
      return true;
    }
    if (!DEFINITE.has(code)) {
      state.pending ??= { sinceMs: this.clock(), failures: 0 };
      state.pending.failures += 1;
      if (state.pending.failures < TRANSIENT_FAILURES) {
        this.logger.debug({ upstream, host: state.host, code, failures: state.pending.failures, err: error }, `${upstream} did not answer`);
        return true;
      }
    }
    state.down = { sinceMs: state.pending?.sinceMs ?? this.clock(), code, failures: state.pending?.failures ?? 1 };
    state.pending = null;
    state.tried = true;
    const { label, setting } = UPSTREAMS[upstream];
    this.logger.warn(
      { upstream, host: state.host, code },
      `${label} cannot be reached at ${state.host} (${code}): check the network, and ${setting} if it is set; ` +
        'the service keeps retrying and serves what it has (repeats are logged at debug level)',
    );
    this.logger.debug({ upstream, err: error }, `${upstream} unreachable`);
    return true;
  }

  /** Upstream answered (whatever the answer). */
  succeeded(upstream: UpstreamName): void {
    const state = this.states.get(upstream);
    if (state) {
      state.tried = true;
      state.pending = null;
    }
    if (!state?.down) return;
    const seconds = Math.round((this.clock() - state.down.sinceMs) / 1000);
    this.logger.warn(
      { upstream, host: state.host, seconds, failures: state.down.failures },
      `${UPSTREAMS[upstream].label} is reachable again after ${seconds} s (${attempts(state.down.failures)})`,
    );
    state.down = null;
  }

  /** The plain-words cause for an upstream that cannot be reached, null while it can. */
  cause(upstream: UpstreamName): string | null {
    const state = this.states.get(upstream);
    if (!state?.down) return null;
    const since = new Date(state.down.sinceMs).toISOString();
    return `${UPSTREAMS[upstream].label} cannot be reached (${state.down.code} ${state.host}) since ${since}; check the network and ${UPSTREAMS[upstream].setting}`;
  }

  snapshot(): UpstreamStatus[] {
    return [...this.states.entries()].map(([upstream, state]) => ({
      upstream,
      host: state.host,
      setting: UPSTREAMS[upstream].setting,
      reachable: state.tried ? state.down === null : null,
      unreachable_since: state.down ? new Date(state.down.sinceMs).toISOString() : null,
      error_code: state.down?.code ?? null,
      failed_attempts: state.down?.failures ?? 0,
      cause: this.cause(upstream),
    }));
  }
}

/** The upstream an ingest source reads (its name's prefix, source-health.ts). */
export function upstreamOfSource(source: string): UpstreamName | null {
  if (source === 'clob.ws') return 'ws';
  if (source.startsWith('gamma.')) return 'gamma';
  if (source.startsWith('clob.')) return 'clob';
  if (source.startsWith('data.')) return 'data';
  if (source.startsWith('chain.')) return 'rpc';
  return null;
}
