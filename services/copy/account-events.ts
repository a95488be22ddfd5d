/**
 * The account's own events (copy.executed, risk.blocked, strategy.signal) as the `copy` and
 * `strategy` stream channels read them. They are decided by the copy engine into the control store,
 * not the event log, so they are kept there too (control migration 0085): recorded in the same
 * transaction as the intents they describe, whether or not the account has a webhook subscription,
 * once per (account, event id).
 *
 * A row's id is its stream position. Writers take one advisory lock before inserting, held until
 * their transaction commits, so ids become visible in increasing order: a reader that has read
 * every row below the highest id it sees has missed nothing, and positions between one account's
 * rows (other accounts' events) are skipped in one read. Retention deletes by age
 * (STREAM_ACCOUNT_EVENT_RETENTION_MS) but always keeps the newest row, so the end never moves back,
 * and marks the highest id it deleted: a position at or below it is expired.
 */
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';
import { type LogMessage, OffsetOutOfRangeError, type PartitionOffsets } from '../ports/event-log.js';

/** The feeds the stream channels name in their cursors: one per channel, over the same rows. */
export const ACCOUNT_FEEDS = {
  copy: { topic: 'account-events.copy', eventTypes: ['copy.executed', 'risk.blocked'] },
  strategy: { topic: 'account-events.strategy', eventTypes: ['strategy.signal'] },
} as const;

/** Names "tapeline account_events writers" among advisory locks. */
const WRITER_LOCK = 7_204_118_031;

export interface AccountEvent {
  accountId: string;
  marketId: string;
  /** The webhook payload as delivered (without `delivery_id`): `event` and `id` name it. */
  payload: { event: string; id: string } & Record<string, unknown>;
}

/** The stored record a channel gets: the payload and whose it is. */
export interface AccountEventRecord {
  account_id: string;
  market_id: string;
  payload: AccountEvent['payload'];
}

const appended = new WeakMap<SqlExecutor, Set<() => void>>();

/**
 * Records the events inside the caller's transaction (call it last in the transaction: the lock is
 * held until commit). Returns how many were new.
 */
export async function recordAccountEvents(tx: SqlExecutor, events: readonly AccountEvent[], nowMs: number): Promise<number> {
  if (events.length === 0) return 0;
  await tx.query('SELECT pg_advisory_xact_lock($1)', [WRITER_LOCK]);
  const rows = await tx.query<{ id: string }>(
    `INSERT INTO account_events (account_id, event_type, event_id, market_id, payload, created_at)
     SELECT e.account_id::bigint, e.event_type, e.event_id, e.market_id, e.payload::jsonb, $2
     FROM jsonb_to_recordset($1::jsonb) AS e(account_id text, event_type text, event_id text, market_id text, payload text)
     ON CONFLICT (account_id, event_id) DO NOTHING
     RETURNING id`,
    [
      JSON.stringify(
        events.map((e) => ({
          account_id: e.accountId,
          event_type: e.payload.event,
          event_id: e.payload.id,
          market_id: e.marketId,
          payload: JSON.stringify(e.payload),
        })),
      ),
      new Date(nowMs),
    ],
  );
  return rows.length;
}

/** Tells this process's stream readers of `control` that events were committed (others poll). */
export function accountEventsCommitted(control: SqlExecutor): void {
  for (const listener of appended.get(control) ?? []) listener();
}

/**
 * Deletes events older than `beforeMs`, except the newest row (the feed's end stays where it is),
 * and moves the expiry mark (account_events_pruned) to the highest id deleted.
 */
export async function pruneAccountEvents(control: ControlStore, beforeMs: number): Promise<number> {
  return control.transaction(async (tx) => {
    const [row] = await tx.query<{ deleted: string; through: string | null }>(
      `WITH gone AS (
         DELETE FROM account_events WHERE created_at < $1 AND id < (SELECT max(id) FROM account_events) RETURNING id
       )
       SELECT count(*)::text AS deleted, max(id)::text AS through FROM gone`,
      [new Date(beforeMs)],
    );
    if (row?.through != null)
      await tx.query(
        `INSERT INTO account_events_pruned (singleton, through) VALUES (TRUE, $1)
         ON CONFLICT (singleton) DO UPDATE SET through = GREATEST(account_events_pruned.through, EXCLUDED.through)`,
        [row.through],
      );
    return Number(row?.deleted ?? 0);
  });
}

/** What a stream subscription reads: the feed's ends, and one account's rows of it. */
export class AccountEventFeed {
  constructor(private readonly control: ControlStore) {}

  /** One partition: from after the last id retention deleted to after the newest row (1, 1 when nothing was recorded). */
  async partitionOffsets(_topic: string): Promise<PartitionOffsets[]> {
    const { start, end } = await this.span();
    return [{ partition: 0, startOffset: start, endOffset: end }];
  }

  private async span(): Promise<{ start: number; end: number }> {
    const [row] = await this.control.query<{ last: string | null; pruned: string | null }>(
      `SELECT (SELECT max(id) FROM account_events)::text AS last, (SELECT through FROM account_events_pruned)::text AS pruned`,
    );
    const start = row?.pruned == null ? 1 : Number(row.pruned) + 1;
    return { start, end: row?.last == null ? start : Math.max(start, Number(row.last) + 1) };
  }

  onAppended(listener: (topic: string) => void): () => void {
    const listeners = appended.get(this.control) ?? new Set<() => void>();
    appended.set(this.control, listeners);
    const wake = () => {
      for (const feed of Object.values(ACCOUNT_FEEDS)) listener(feed.topic);
    };
    listeners.add(wake);
    return () => listeners.delete(wake);
  }

  /**
   * The account's events of the feed's types from position `from` up to (not including) `end`, at
   * most `max`; `next` is the position after them: `end` when fewer than `max` came (the positions
   * in between are other accounts' or other types').
   */
  async read(accountId: string, topic: string, from: number, end: number, max: number): Promise<{ messages: LogMessage[]; next: number }> {
    const { start } = await this.span();
    if (from < start) throw new OffsetOutOfRangeError(topic, from, start);
    const feed = Object.values(ACCOUNT_FEEDS).find((f) => f.topic === topic);
    if (!feed) throw new Error(`account events: no feed ${topic}`);
    const rows = await this.control.query<{ id: string; account_id: string; market_id: string; payload: unknown; at: Date }>(
      `SELECT id::text AS id, account_id::text AS account_id, market_id, payload, created_at AS at
       FROM account_events
       WHERE account_id = $1::bigint AND event_type = ANY($2::text[]) AND id >= $3 AND id < $4
       ORDER BY id LIMIT $5`,
      [accountId, [...feed.eventTypes], from, end, max],
    );
    const messages = rows.map((row): LogMessage => {
      const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
      const record: AccountEventRecord = { account_id: row.account_id, market_id: row.market_id, payload };
      return {
        topic,
        partition: 0,
        offset: Number(row.id),
        key: row.account_id,
        value: Buffer.from(JSON.stringify(record)),
        timestamp: new Date(row.at).getTime(),
        headers: {},
      };
    });
    const next = rows.length < max ? end : Number(rows.at(-1)!.id) + 1;
    return { messages, next };
  }
}
