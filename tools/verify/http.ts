/**
 * Bounded HTTP for the verifier: at most `concurrency` requests in flight, a timeout on each, and a
 * rate-limited or busy answer (429, 503) waited out (Retry-After, else a doubling backoff) a bounded
 * number of times. Everything it reads is JSON.
 */

export interface HttpOptions {
  concurrency: number;
  timeoutMs: number;
  /** Attempts per request in all (429/503/network errors are retried). */
  attempts: number;
}

class HttpError extends Error {
  constructor(
    readonly url: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`GET ${url}: HTTP ${status} ${body.slice(0, 200)}`);
  }
}

export class BoundedHttp {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  requests = 0;

  constructor(private readonly options: HttpOptions) {}

  /** GET `url` as JSON; 404 resolves to null (a wallet or market the other side does not know). */
  async getJson<T>(url: string, apiKey?: string): Promise<T | null> {
    await this.slot();
    try {
      return await this.attempt<T>(url, apiKey);
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  private async slot(): Promise<void> {
    if (this.active < this.options.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
  }

  private async attempt<T>(url: string, apiKey: string | undefined): Promise<T | null> {
    let backoffMs = 250;
    for (let attempt = 1; ; attempt++) {
      this.requests++;
      let status = 0;
      let text = '';
      let retryAfterMs: number | null = null;
      try {
        const response = await fetch(url, {
          headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
        status = response.status;
        text = await response.text();
        const retryAfter = Number(response.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = retryAfter * 1000;
      } catch (error) {
        if (attempt >= this.options.attempts) throw error;
      }
      if (status === 200) return JSON.parse(text) as T;
      if (status === 404) return null;
      const retryable = status === 0 || status === 429 || status === 503;
      if (!retryable || attempt >= this.options.attempts) throw new HttpError(url, status, text);
      await new Promise((resolve) => setTimeout(resolve, retryAfterMs ?? backoffMs));
      backoffMs = Math.min(backoffMs * 2, 5_000);
    }
  }
}

/** Runs `work` over `items`, the client bounding how many requests are in flight. */
export async function forEachBounded<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await work(items[next++] as T);
  });
  await Promise.all(runners);
}
