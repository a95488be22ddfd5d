/**
 * A read model is one folder under services/read-models/: the streams it introduces, how their
 * events become ClickHouse rows, the migrations that create those tables, its queries and routes,
 * and its projection tests. registry.ts lists every read model; the publisher, the sink, the
 * migrator, the API and the tests all iterate that list (docs/ARCHITECTURE.md lists what else adding
 * one touches: its schema, producer, API document and tests).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Router } from 'express';
import type { Stream } from '../events/stream.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { MarketLookupPort } from '../ports/market-lookup.js';

/** A ClickHouse row: keys are the table's column names (checked against system.columns by tests). */
export type Row = Record<string, unknown>;

/** Where a record sits in its topic: what a redelivery of the same record repeats exactly. */
export interface LogPosition {
  partition: number;
  offset: number;
}

export interface Positioned<E> {
  event: E;
  at: LogPosition;
}

export interface Projection<E = unknown> {
  stream: Stream<E>;
  table: string;
  /** The events this table holds, when a stream carries several kinds (default: all). */
  accepts?(event: E): boolean;
  /** The row of an event; `at` is where the event sits in its topic (a table may keep it, see `unseen`). */
  row(event: E, at: LogPosition): Row;
  /**
   * For tables whose materialized views count every row they are handed: splits the events into
   * those not stored yet (`fresh`, inserted) and, of the stored ones, those stored from the same log
   * position (`replayed`). A stored event at another position is a re-publication, counted already.
   * A replayed one is a redelivery of a batch whose insert reached the table and not all of its views
   * (a table insert and its views' inserts are not one transaction: a crash or a failed view between
   * them leaves rows the views never counted); `afterInsert` rebuilds the views' rows it feeds.
   */
  unseen?(store: AnalyticsStore, events: ReadonlyArray<Positioned<E>>): Promise<{ fresh: E[]; replayed: E[] }>;
  /**
   * Effects a row insert cannot express (a retraction deleting rows and rebuilding aggregates, the
   * views' rows of replayed events), run with every decoded event of the batch after its rows are
   * inserted and before its offsets are committed. Must be idempotent: a failed batch is handed over again.
   */
  afterInsert?(store: AnalyticsStore, events: E[], replayed: E[]): Promise<void>;
  /**
   * A projection with state of its own (the position ledger) writes its table itself from the batch's
   * events instead of one row per event; it resolves with the number of rows written and must be
   * idempotent across redelivery.
   */
  apply?(store: AnalyticsStore, events: E[], context: ApplyContext): Promise<number>;
}

interface ApplyContext {
  /** Identifies the batch. */
  dedupToken: string;
  /** Its consumer's. */
  logger: Logger;
  /** Aborted when the consumer stops: the projection may give up by throwing its reason (the batch comes again). */
  signal: AbortSignal;
}

export interface RouteContext {
  store: AnalyticsStore;
  /** On-demand upstream lookup of markets the catalog does not hold yet (absent: answer 404). */
  marketLookup?: MarketLookupPort;
  /** GET /copy-picks' default min_resolved (COPY_PICKS_MIN_RESOLVED); absent: 10. */
  copyPicksMinResolved?: number;
  /** Why market lists are empty while no catalog has been indexed (ingest/catalog-notice.ts); absent or null: no notice. */
  catalogNotice?: () => string | null;
}

interface JobContext {
  store: AnalyticsStore;
  config: Config;
  logger: Logger;
}

export interface RunningJob {
  stop(): Promise<void>;
}

export interface ReadModel {
  name: string;
  /** Streams this read model introduces (others it reads are imported from their own folder). */
  streams: Record<string, Stream>;
  /** Events -> rows, applied by the sink. */
  projections: Projection[];
  /** Folder of NNNN_name.sql migrations (version numbers are unique across all read models). */
  migrations: string;
  routes?: (context: RouteContext) => Router;
  /** Background maintenance run by the process that writes ClickHouse (the sink part). */
  jobs?: (context: JobContext) => RunningJob[];
}

/** Keeps the event type of a projection tied to its stream at the definition site. */
export function project<E>(stream: Stream<E>, projection: Omit<Projection<E>, 'stream'>): Projection<E> {
  return { stream, ...projection };
}

export function defineReadModel<const M extends ReadModel>(model: M): M {
  return model;
}

/** The migrations folder next to a read model's index module. */
export function migrationsBeside(moduleUrl: string): string {
  return path.join(path.dirname(fileURLToPath(moduleUrl)), 'migrations');
}
