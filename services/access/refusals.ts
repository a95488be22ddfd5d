/**
 * Refused calls (402 PAYMENT_REQUIRED, 429 RATE_LIMITED) per account: counted per UTC day beside the
 * metered calls (usage_counters) and the newest few kept itemised (usage_refusals), so a developer can
 * see which call was refused and why. Like the meter, a refusal never waits on a write: they are
 * buffered and flushed every `flushIntervalMs`. Memory and writes are bounded: an account itemises at
 * most as many refusals per interval as are kept per account (more would be written only to be
 * trimmed), and past `maxBufferedItems` in one interval only the day counts grow, so a flood of 429s
 * is counted in full but costs the control store a few rows a second, not one per refused call.
 */
import type { ControlStore } from '../ports/control-store.js';
import { DAY_MS, startOfUtcDay } from '../shared/time.js';

export interface Refusal {
  accountId: string;
  status: 402 | 429;
  code: string;
  method: string;
  path: string;
  reason: string;
}

export interface RefusalRecord {
  id: string;
  at: string;
  status: number;
  code: string;
  method: string;
  path: string;
  reason: string;
}

export interface UsageDay {
  date: string;
  calls: number;
  credits_spent: number;
  refused_402: number;
  refused_429: number;
}

export interface RefusalLogOptions {
  flushIntervalMs: number;
  /** Itemised refusals kept per account (older ones are deleted at each flush). */
  keepPerAccount?: number;
  maxBufferedItems?: number;
  clock?: () => number;
  onFlushError?: (error: unknown) => void;
}

/** Itemised refusals kept per account: enough to see a pattern, small enough to never matter. */
const REFUSALS_KEPT_PER_ACCOUNT = 100;
const MAX_PATH_LENGTH = 300;
const MAX_REASON_LENGTH = 500;

export class RefusalLog {
  private items: Array<Refusal & { at: number }> = [];
  /** Items buffered per account this interval (capped at the number kept per account). */
  private itemsPerAccount = new Map<string, number>();
  /** `${accountId}|${YYYY-MM-DD}` -> counts since the last flush. */
  private counts = new Map<string, { accountId: string; day: string; r402: number; r429: number }>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly clock: () => number;

  constructor(
    private readonly store: ControlStore,
    private readonly options: RefusalLogOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  private get keepPerAccount(): number {
    return this.options.keepPerAccount ?? REFUSALS_KEPT_PER_ACCOUNT;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.flush().catch((error: unknown) => this.options.onFlushError?.(error));
    }, this.options.flushIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush().catch((error: unknown) => this.options.onFlushError?.(error));
  }

  record(refusal: Refusal): void {
    const at = this.clock();
    const day = new Date(at).toISOString().slice(0, 10);
    const key = `${refusal.accountId}|${day}`;
    const count = this.counts.get(key) ?? { accountId: refusal.accountId, day, r402: 0, r429: 0 };
    if (refusal.status === 402) count.r402++;
    else count.r429++;
    this.counts.set(key, count);
    const itemised = this.itemsPerAccount.get(refusal.accountId) ?? 0;
    if (itemised < this.keepPerAccount && this.items.length < (this.options.maxBufferedItems ?? 10_000)) {
      this.itemsPerAccount.set(refusal.accountId, itemised + 1);
      this.items.push({
        ...refusal,
        path: refusal.path.slice(0, MAX_PATH_LENGTH),
        reason: refusal.reason.slice(0, MAX_REASON_LENGTH),
        at,
      });
    }
  }

  /** Writes what was recorded since the last flush; a failed write keeps it for the next one. */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.flushOnce());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async flushOnce(): Promise<void> {
    const items = this.items;
    const counts = this.counts;
    if (items.length === 0 && counts.size === 0) return;
    this.items = [];
    this.itemsPerAccount = new Map();
    this.counts = new Map();
    try {
      await this.store.transaction(async (tx) => {
        for (const c of counts.values()) {
          await tx.query(
            `INSERT INTO usage_counters (account_id, period_start, refused_402, refused_429) VALUES ($1, $2, $3, $4)
             ON CONFLICT (account_id, period_start)
             DO UPDATE SET refused_402 = usage_counters.refused_402 + EXCLUDED.refused_402,
                           refused_429 = usage_counters.refused_429 + EXCLUDED.refused_429`,
            [c.accountId, c.day, c.r402, c.r429],
          );
        }
        if (items.length > 0) {
          await tx.query(
            `INSERT INTO usage_refusals (account_id, at, status, code, method, path, reason)
             SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[])`,
            [
              items.map((i) => i.accountId),
              items.map((i) => new Date(i.at)),
              items.map((i) => i.status),
              items.map((i) => i.code),
              items.map((i) => i.method),
              items.map((i) => i.path),
              items.map((i) => i.reason),
            ],
          );
          const keep = this.keepPerAccount;
          await tx.query(
            `DELETE FROM usage_refusals r USING (
               SELECT id FROM (
                 SELECT id, row_number() OVER (PARTITION BY account_id ORDER BY id DESC) AS n
                   FROM usage_refusals WHERE account_id = ANY($1::bigint[])
               ) ranked WHERE n > $2
             ) old WHERE r.id = old.id`,
            [[...new Set(items.map((i) => i.accountId))], keep],
          );
        }
      });
    } catch (error) {
      // Keep them for the next flush (bounded by the same cap).
      for (const [key, c] of counts) {
        const now = this.counts.get(key);
        if (now) {
          now.r402 += c.r402;
          now.r429 += c.r429;
        } else this.counts.set(key, c);
      }
      this.items = [...items, ...this.items].slice(0, this.options.maxBufferedItems ?? 10_000);
      this.itemsPerAccount = new Map();
      for (const item of this.items) this.itemsPerAccount.set(item.accountId, (this.itemsPerAccount.get(item.accountId) ?? 0) + 1);
      throw error;
    }
  }
}

/**
 * Calls, credits spent and refusals per UTC day for the last `days` days (today included), oldest
 * first; days without activity are zero. Reads what was flushed (at most one flush interval behind).
 */
export async function usageByDay(store: ControlStore, accountId: string, days: number, nowMs: number): Promise<UsageDay[]> {
  const today = startOfUtcDay(nowMs);
  const first = today - (days - 1) * DAY_MS;
  const rows = await store.query<{ day: string; calls: string; credits_spent: string; refused_402: string; refused_429: string }>(
    `SELECT to_char(period_start, 'YYYY-MM-DD') AS day, calls::text AS calls, credits_spent::text AS credits_spent,
            refused_402::text AS refused_402, refused_429::text AS refused_429
       FROM usage_counters WHERE account_id = $1 AND period_start >= $2::date AND period_start <= $3::date`,
    [accountId, new Date(first).toISOString().slice(0, 10), new Date(today).toISOString().slice(0, 10)],
  );
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const out: UsageDay[] = [];
  for (let ms = first; ms <= today; ms += DAY_MS) {
    const date = new Date(ms).toISOString().slice(0, 10);
    const row = byDay.get(date);
    out.push({
      date,
      calls: Number(row?.calls ?? 0),
      credits_spent: Number(row?.credits_spent ?? 0),
      refused_402: Number(row?.refused_402 ?? 0),
      refused_429: Number(row?.refused_429 ?? 0),
    });
  }
  return out;
}

/** The account's itemised refusals, newest first, continuing below `beforeId`. */
export async function recentRefusals(
  store: ControlStore,
  accountId: string,
  limit: number,
  beforeId: string | null,
): Promise<RefusalRecord[]> {
  const rows = await store.query<{ id: string; at: Date; status: number; code: string; method: string; path: string; reason: string }>(
    `SELECT id::text AS id, at, status, code, method, path, reason FROM usage_refusals
      WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint) ORDER BY id DESC LIMIT $3`,
    [accountId, beforeId, limit],
  );
  return rows.map((r) => ({ ...r, status: Number(r.status), at: new Date(r.at).toISOString() }));
}
