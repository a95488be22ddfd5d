/**
 * The one way ingestion talks to an upstream HTTP API: per-API request budgets, timeouts,
 * retries with exponential backoff and full jitter on 429/5xx/network errors (Retry-After honoured),
 * and a clear error for a Cloudflare-style 403 block. Responses tell which upstream produced them:
 * the simulator labels itself with `X-Upstream-Source: simulator`.
 */
import { type BackoffPolicy, backoffMs } from '../shared/backoff.js';
import type { Source } from '../events/types.js';
import { RateBudget } from '../shared/rate-budget.js';
import type { UpstreamName, UpstreamReachability } from './upstream-reachability.js';

const RETRY_BACKOFF: BackoffPolicy = { baseMs: 250, maxMs: 15_000, jitter: 'full' };

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retriable: boolean,
    /** The connection-level error code when upstream could not be reached (no answer at all). */
    readonly unreachable: string | null = null,
  ) {
    super(message);
  }
}

export interface UpstreamResponse<T = unknown> {
  body: T;
  source: Source;
}

export interface UpstreamClientOptions {
  baseUrl: string;
  name: string;
  budgetPer10s: number;
  timeoutMs: number;
  maxAttempts?: number;
  fetchImpl?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Told of every attempt's outcome: whether upstream could be reached at all. */
  reachability?: { tracker: UpstreamReachability; upstream: UpstreamName };
}

export class UpstreamClient {
  private readonly budget: RateBudget;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly options: UpstreamClientOptions) {
    this.budget = new RateBudget(options.budgetPer10s);
    this.fetchImpl = options.fetchImpl ?? fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = options.random ?? Math.random;
  }

  get name(): string {
    return this.options.name;
  }

  async getJson<T = unknown>(pathAndQuery: string, init: { method?: string; body?: unknown } = {}): Promise<UpstreamResponse<T>> {
    const url = `${this.options.baseUrl}${pathAndQuery}`;
    const maxAttempts = this.options.maxAttempts ?? 5;
    let lastError: UpstreamError | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      await this.budget.take();
      try {
        return await this.once<T>(url, init);
      } catch (error) {
        lastError = error instanceof UpstreamError ? error : new UpstreamError(`${this.name}: ${(error as Error).message}`, null, true);
        if (!lastError.retriable || attempt === maxAttempts) break;
        await this.sleep(this.backoffMs(attempt, (lastError as UpstreamError & { retryAfterMs?: number }).retryAfterMs));
      }
    }
    throw lastError!;
  }

  private async once<T>(url: string, init: { method?: string; body?: unknown }): Promise<UpstreamResponse<T>> {
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method: init.method ?? 'GET',
        headers: { accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      // fetch reports every network failure as "fetch failed"; the cause says which (ENOTFOUND, ECONNREFUSED, ...).
      const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
      const timedOut = (error as Error).name === 'TimeoutError';
      const reason = timedOut
        ? `timed out after ${this.options.timeoutMs} ms`
        : `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
      const code = timedOut ? 'ETIMEDOUT' : (cause?.code ?? 'EUNREACHABLE');
      const failure = new UpstreamError(`${this.name} ${url}: ${reason}`, null, true, code);
      this.options.reachability?.tracker.failed(this.options.reachability.upstream, failure);
      throw failure;
    }
    this.options.reachability?.tracker.succeeded(this.options.reachability.upstream);
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      const blocked =
        response.status === 403 && /cloudflare|cf-ray|attention required/i.test(text + (response.headers.get('server') ?? ''));
      const message = blocked
        ? `${this.name} ${url}: blocked by the upstream's edge (HTTP 403, Cloudflare); requests from this host are refused`
        : `${this.name} ${url}: HTTP ${response.status} ${text.slice(0, 200)}`;
      const retriable = response.status === 429 || response.status >= 500;
      const error = new UpstreamError(message, response.status, retriable) as UpstreamError & { retryAfterMs?: number };
      const retryAfter = Number(response.headers.get('retry-after'));
      if (Number.isFinite(retryAfter) && retryAfter > 0) error.retryAfterMs = Math.min(retryAfter * 1000, 60_000);
      throw error;
    }
    let body: T;
    try {
      body = (await response.json()) as T;
    } catch {
      throw new UpstreamError(`${this.name} ${url}: response is not JSON`, response.status, true);
    }
    const source: Source = response.headers.get('x-upstream-source') === 'simulator' ? 'simulator' : 'polymarket';
    return { body, source };
  }

  /** Exponential backoff with full jitter (250 ms base, 15 s cap), never shorter than Retry-After. */
  private backoffMs(attempt: number, retryAfterMs?: number): number {
    return Math.max(retryAfterMs ?? 0, backoffMs(RETRY_BACKOFF, attempt, this.random));
  }
}
