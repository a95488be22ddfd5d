/** Per-source freshness, reported by /v1/health: when each ingestor last succeeded and what it saw. */
export interface SourceStatus {
  source: string;
  last_success_at: string | null;
  last_attempt_at: string | null;
  last_error: string | null;
  consecutive_failures: number;
  records_published: number;
  records_dead_lettered: number;
}

export class SourceHealth {
  private readonly sources = new Map<string, SourceStatus>();

  constructor(private readonly clock: () => number = Date.now) {}

  private entry(source: string): SourceStatus {
    let status = this.sources.get(source);
    if (!status) {
      status = { source, last_success_at: null, last_attempt_at: null, last_error: null, consecutive_failures: 0, records_published: 0, records_dead_lettered: 0 };
      this.sources.set(source, status);
    }
    return status;
  }

  register(source: string): void {
    this.entry(source);
  }

  succeeded(source: string, published: number, deadLettered: number): void {
    const status = this.entry(source);
    const now = new Date(this.clock()).toISOString();
    status.last_attempt_at = now;
    status.last_success_at = now;
    status.last_error = null;
    status.consecutive_failures = 0;
    status.records_published += published;
    status.records_dead_lettered += deadLettered;
  }

  failed(source: string, error: unknown): void {
    const status = this.entry(source);
    status.last_attempt_at = new Date(this.clock()).toISOString();
    status.last_error = error instanceof Error ? error.message : String(error);
    status.consecutive_failures += 1;
  }

  snapshot(): SourceStatus[] {
    return [...this.sources.values()].map((s) => ({ ...s }));
  }
}
