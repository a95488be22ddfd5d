/**
 * What the parts of one process share: the engines (those its parts declare opened at once before
 * the first starts, any other on first use; each closed once) and the links between parts that
 * happen to run together (the API reports the in-process ingest's source health and the sink's
 * figures; signals and the API wake an in-process dispatcher at once instead of waiting for its poll). Opening the resources runs the start-up guards, so every way of starting
 * tapeline gets them: the folder owner-only (services/shared/data-dir-privacy.ts), no real upstream
 * into a simulator data folder, and the folder's exclusive lock whenever an embedded engine lives in
 * it (services/shared/data-dir-lock.ts).
 */
import type { Family } from '../shared/metric-family.js';
import { openAnalyticsStore } from '../analytics/open-analytics.js';
import { serviceRefusal } from '../backfill/exclusive-access.js';
import type { ChainStatus } from '../chain/follower.js';
import type { Config } from '../config.js';
import { openControlStore } from '../control/open-control.js';
import { openEventLog } from '../eventlog/open-event-log.js';
import type { SourceHealth, SourceStatus } from '../ingest/source-health.js';
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { UpstreamStatus } from '../ingest/upstream-reachability.js';
import type { ControlStore } from '../ports/control-store.js';
import type { EventLog } from '../ports/event-log.js';
import { allTopicSpecs } from '../read-models/registry.js';
import { assertNotSimulatorData } from '../shared/data-dir-guard.js';
import { acquireDataDirLock, type DataDirLock, usesEmbeddedEngines } from '../shared/data-dir-lock.js';
import { claimDataDirPrivately } from '../shared/data-dir-privacy.js';
import { sinkMetrics, type SinkStats } from '../sink/sink-service.js';

export interface LocalLinks {
  ingestHealth: SourceHealth | null;
  chainStatus: (() => ChainStatus | null) | null;
  upstreams: (() => UpstreamStatus[]) | null;
  dispatcher: { wake(): void } | null;
  apiUrl: string | null;
  sink: { stats: SinkStats } | null;
}

/** The engines a part's start opens through PartResources. */
export type PartEngine = 'log' | 'analytics' | 'control';

export class PartResources {
  private log: Promise<EventLog> | null = null;
  private analytics: Promise<AnalyticsStore> | null = null;
  private control: Promise<ControlStore> | null = null;
  readonly local: LocalLinks = { ingestHealth: null, chainStatus: null, upstreams: null, dispatcher: null, apiUrl: null, sink: null };
  private readonly lock: DataDirLock | null;

  /** Refuses to start on a data folder that belongs to the simulator (for real upstreams) or to another live process. */
  constructor(
    readonly config: Config,
    readonly logger: Logger,
  ) {
    claimDataDirPrivately(config.dataDir, logger);
    assertNotSimulatorData(config.dataDir, config.upstream.gammaUrl);
    this.lock = usesEmbeddedEngines(config.engines)
      ? acquireDataDirLock(config.dataDir, 'service', (holder) => serviceRefusal(config.dataDir, holder))
      : null;
  }

  /** The event log, with every topic created (the admin step). */
  eventLog(): Promise<EventLog> {
    this.log ??= openEventLog(this.config, this.logger).then(async (log) => {
      await log.createTopics(allTopicSpecs());
      return log;
    });
    return this.log;
  }

  /** The analytics store, migrated. */
  analyticsStore(): Promise<AnalyticsStore> {
    this.analytics ??= openAnalyticsStore(this.config);
    return this.analytics;
  }

  /** The control store, migrated. */
  controlStore(): Promise<ControlStore> {
    this.control ??= openControlStore(this.config);
    return this.control;
  }

  /**
   * Opens the given engines at once rather than as each part first asks: a fresh folder's PGlite
   * cluster is created in a child process (initdb, seconds) while this one migrates chDB.
   */
  async open(engines: ReadonlySet<PartEngine>): Promise<void> {
    const opening: Array<Promise<unknown>> = [];
    if (engines.has('log')) opening.push(this.eventLog());
    if (engines.has('analytics')) opening.push(this.analyticsStore());
    if (engines.has('control')) opening.push(this.controlStore());
    await Promise.all(opening);
  }

  /** Source health of an ingest part in this process (none when ingestion runs elsewhere). */
  sources(): SourceStatus[] {
    return this.local.ingestHealth?.snapshot() ?? [];
  }

  /** Whether each upstream can be reached, from an ingest part in this process (none when ingestion runs elsewhere). */
  upstreams(): UpstreamStatus[] {
    return this.local.upstreams?.() ?? [];
  }

  /** The chain source's figures when it runs in this process. */
  chainStatus(): ChainStatus | null {
    return this.local.chainStatus?.() ?? null;
  }

  wakeDispatcher(): void {
    this.local.dispatcher?.wake();
  }

  /** Figures of parts in this process that /metrics shows (the sink's, when it runs here). */
  localMetrics(): Family[] {
    return this.local.sink ? sinkMetrics(this.local.sink.stats) : [];
  }

  async close(): Promise<void> {
    try {
      // In order, each that opened: one that failed to open has nothing to close, and the others still close.
      for (const opening of [this.log, this.analytics, this.control]) {
        const opened = await opening?.catch(() => null);
        if (opened) await opened.close();
      }
    } finally {
      this.lock?.release();
    }
  }
}
