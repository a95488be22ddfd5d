/**
 * A sliding-window request budget (requests per window). Polymarket throttles per 10 s sliding
 * windows; staying inside our own smaller budget keeps us from being throttled at all.
 */
export class RateBudget {
  private readonly sent: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly windowMs = 10_000,
    private readonly clock: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Resolves when one more request fits in the window, and counts it. */
  async take(): Promise<void> {
    for (;;) {
      const now = this.clock();
      while (this.sent.length > 0 && this.sent[0]! <= now - this.windowMs) this.sent.shift();
      if (this.sent.length < this.limit) {
        this.sent.push(now);
        return;
      }
      await this.sleep(this.sent[0]! + this.windowMs - now + 1);
    }
  }
}
