/**
 * The lifecycle processor: its own consumer group over every stream that reports on a market's
 * lifecycle (observations.ts), from the beginning of the log. Per batch, in one control-store
 * transaction: lock the batch's markets' states, run the state machine over the observations in log
 * order, publish the transitions to the lifecycle stream, store the new states; then the log commits
 * the batch. A crash anywhere redelivers the batch: either the states were not stored (the same
 * transitions are published again, with the same ids: market + revision) or they were (nothing new
 * happens). Undecodable messages are dead-lettered by the runner (services/processors/processor.ts)
 * and counted as skipped.
 */
import type { EventPublisher } from '../events/publisher.js';
import type { MarketLifecycleTransition } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';
import type { EventLog, LogMessage } from '../ports/event-log.js';
import { defineProcessor, type ProcessorBatch, type ProcessorContext, runProcessor } from '../processors/processor.js';
import { OBSERVATION_SOURCES } from './observations.js';
import { type MarketLifecycle, type Observation, step } from './state-machine.js';

const LIFECYCLE_GROUP_ID = 'tapeline-lifecycle';

export interface LifecycleOptions {
  log: EventLog;
  control: ControlStore;
  publisher: EventPublisher;
  logger: Logger;
  clock?: () => number;
  groupId?: string;
}

interface LifecycleStats {
  batches: number;
  observations: number;
  transitions: number;
  skipped: number;
}

export interface LifecycleService {
  readonly stats: LifecycleStats;
  stop(): Promise<void>;
}

interface StateRow {
  market_id: string;
  source: MarketLifecycle['source'];
  state: MarketLifecycle['state'];
  revision: number;
  authority: MarketLifecycle['authority'];
  resolution_number: number;
  payouts: number[];
  resolved_outcome: string | null;
  winning_outcome_index: number;
  slug: string;
  title: string;
  outcomes: string[];
  yes_index: number;
}

export async function startLifecycle(options: LifecycleOptions): Promise<LifecycleService> {
  const clock = options.clock ?? Date.now;
  const stats: LifecycleStats = { batches: 0, observations: 0, transitions: 0, skipped: 0 };
  const sources = new Map(OBSERVATION_SOURCES.map((source) => [source.stream.topic, source]));
  const epochMs = await lifecycleEpoch(options.control, clock());

  const handleBatch = async (batch: ProcessorBatch, context: ProcessorContext) => {
    const source = sources.get(batch.topic);
    if (!source) return;
    const observations: Observation[] = [];
    const unobservable: Array<{ message: LogMessage; reason: string }> = [];
    for (const { event, message } of batch.records) {
      try {
        const observation = source.observe(event);
        if (observation) observations.push(observation);
      } catch (error) {
        unobservable.push({ message, reason: `cannot observe ${batch.stream.name} event: ${(error as Error).message}` });
      }
    }
    await context.deadLetter(unobservable);
    stats.skipped += batch.deadLettered + unobservable.length;
    if (observations.length === 0) return;
    const transitions = await options.control.transaction(async (tx) => {
      const states = await loadStates(tx, [...new Set(observations.map((o) => o.market_id))]);
      const changed = new Map<string, MarketLifecycle>();
      const out: MarketLifecycleTransition[] = [];
      for (const observation of observations) {
        const result = step(states.get(observation.market_id) ?? null, observation, epochMs);
        states.set(observation.market_id, result.next);
        changed.set(observation.market_id, result.next);
        out.push(...result.transitions);
      }
      // Published before the states are stored: if the commit then fails, the redelivered batch
      // publishes the same transitions again (same ids), never skips them.
      await options.publisher.publish('marketLifecycle', out);
      await saveStates(tx, [...changed.values()], clock());
      return out;
    });
    stats.batches += 1;
    stats.observations += observations.length;
    stats.transitions += transitions.length;
  };

  const processor = await runProcessor(
    options.log,
    defineProcessor({
      name: 'lifecycle',
      group: options.groupId ?? LIFECYCLE_GROUP_ID,
      streams: OBSERVATION_SOURCES.map((source) => source.stream),
      maxBatchSize: 1_000,
      fromBeginning: true,
      handle: handleBatch,
    }),
    options.logger,
  );
  return { stats, stop: () => processor.stop() };
}

/** When the lifecycle began watching: set on the first start, read ever after. */
async function lifecycleEpoch(control: ControlStore, nowMs: number): Promise<number> {
  await control.query('INSERT INTO lifecycle_meta (id, epoch_ms) VALUES (true, $1) ON CONFLICT (id) DO NOTHING', [nowMs]);
  const [row] = await control.query<{ epoch_ms: string | number }>('SELECT epoch_ms FROM lifecycle_meta WHERE id');
  return Number(row?.epoch_ms ?? nowMs);
}

async function loadStates(db: SqlExecutor, marketIds: string[]): Promise<Map<string, MarketLifecycle>> {
  // FOR UPDATE: consumers of several partitions (Kafka) may touch one market from two topics at once.
  const rows = await db.query<StateRow>(
    `SELECT market_id, source, state, revision, authority, resolution_number, payouts, resolved_outcome, winning_outcome_index,
            slug, title, outcomes, yes_index
       FROM market_lifecycle_states WHERE market_id = ANY($1::text[]) FOR UPDATE`,
    [marketIds],
  );
  return new Map(
    rows.map((r) => [
      r.market_id,
      {
        ...r,
        revision: Number(r.revision),
        resolution_number: Number(r.resolution_number),
        winning_outcome_index: Number(r.winning_outcome_index),
        yes_index: Number(r.yes_index),
        payouts: r.payouts.map(Number),
      },
    ]),
  );
}

async function saveStates(db: SqlExecutor, states: MarketLifecycle[], nowMs: number): Promise<void> {
  if (states.length === 0) return;
  await db.query(
    `INSERT INTO market_lifecycle_states
       (market_id, source, state, revision, authority, resolution_number, payouts, resolved_outcome, winning_outcome_index,
        slug, title, outcomes, yes_index, updated_at)
     SELECT market_id, source, state, revision, authority, resolution_number, payouts::double precision[], resolved_outcome,
            winning_outcome_index, slug, title, outcomes::text[], yes_index, $14
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::int[], $7::text[], $8::text[], $9::int[],
                   $10::text[], $11::text[], $12::text[], $13::int[])
         AS t(market_id, source, state, revision, authority, resolution_number, payouts, resolved_outcome, winning_outcome_index,
              slug, title, outcomes, yes_index)
     ON CONFLICT (market_id) DO UPDATE SET
       source = EXCLUDED.source, state = EXCLUDED.state, revision = EXCLUDED.revision, authority = EXCLUDED.authority,
       resolution_number = EXCLUDED.resolution_number, payouts = EXCLUDED.payouts, resolved_outcome = EXCLUDED.resolved_outcome,
       winning_outcome_index = EXCLUDED.winning_outcome_index, slug = EXCLUDED.slug, title = EXCLUDED.title,
       outcomes = EXCLUDED.outcomes, yes_index = EXCLUDED.yes_index, updated_at = EXCLUDED.updated_at`,
    [
      states.map((s) => s.market_id),
      states.map((s) => s.source),
      states.map((s) => s.state),
      states.map((s) => s.revision),
      states.map((s) => s.authority),
      states.map((s) => s.resolution_number),
      // Arrays of arrays do not pass through unnest as rows: each travels as its Postgres array literal.
      states.map((s) => `{${s.payouts.join(',')}}`),
      states.map((s) => s.resolved_outcome),
      states.map((s) => s.winning_outcome_index),
      states.map((s) => s.slug),
      states.map((s) => s.title),
      states.map((s) => pgTextArray(s.outcomes)),
      states.map((s) => s.yes_index),
      new Date(nowMs),
    ],
  );
}

/** A Postgres text[] literal: every element quoted, quotes and backslashes escaped. */
function pgTextArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}
