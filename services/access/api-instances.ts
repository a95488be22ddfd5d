/**
 * The API processes serving right now, as seen through the control store: each process upserts its
 * row every `intervalMs`, and counts the rows seen within three intervals. Per-process limits are
 * divided by that count (rate-limit.ts), so limits hold in total however many processes run. The
 * same beat deletes rows of processes gone for a minute and counter windows older than a day.
 * With the store unreachable the last count is kept (the beat retries at the next interval).
 */
import crypto from 'node:crypto';
import type { ControlStore } from '../ports/control-store.js';

export class ApiInstances {
  readonly id = `${process.pid}-${crypto.randomBytes(6).toString('hex')}`;
  private live = 1;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: ControlStore,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void = () => {},
    private readonly clock: () => number = Date.now,
  ) {}

  /** API processes live now (at least this one). */
  count(): number {
    return this.live;
  }

  async start(): Promise<void> {
    await this.beat().catch(this.onError);
    this.timer = setInterval(() => {
      this.beat().catch(this.onError);
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.store.query('DELETE FROM api_instances WHERE id = $1', [this.id]).catch(this.onError);
  }

  async beat(): Promise<void> {
    const now = new Date(this.clock());
    await this.store.query(
      `INSERT INTO api_instances (id, started_at, seen_at) VALUES ($1, $2, $2) ON CONFLICT (id) DO UPDATE SET seen_at = EXCLUDED.seen_at`,
      [this.id, now],
    );
    const [row] = await this.store.query<{ n: string }>('SELECT count(*)::text AS n FROM api_instances WHERE seen_at > $1', [
      new Date(now.getTime() - 3 * this.intervalMs),
    ]);
    this.live = Math.max(1, Number(row?.n ?? 1));
    await this.store.query('DELETE FROM api_instances WHERE seen_at < $1', [new Date(now.getTime() - 60_000)]);
    await this.store.query('DELETE FROM rate_windows WHERE window_start < $1', [new Date(now.getTime() - 86_400_000)]);
  }
}
