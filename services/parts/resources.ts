/**
 * Engines a part needs, opened on first use and closed once: a process running several parts
 * shares one event log, one analytics store and one control store between them.
 */
import { openAnalyticsStore } from '../analytics/open-analytics.js';
import type { Config } from '../config.js';
import { openControlStore } from '../control/open-control.js';
import { openEventLog } from '../eventlog/open-event-log.js';
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { ControlStore } from '../ports/control-store.js';
import type { EventLog } from '../ports/event-log.js';
import { allTopicSpecs } from '../shared/topics.js';

export class PartResources {
  private log: Promise<EventLog> | null = null;
  private analytics: Promise<AnalyticsStore> | null = null;
  private control: Promise<ControlStore> | null = null;

  constructor(
    readonly config: Config,
    readonly logger: Logger,
  ) {}

  /** The event log, with every topic created (the admin step). */
  eventLog(): Promise<EventLog> {
    return (this.log ??= openEventLog(this.config, this.logger).then(async (log) => {
      await log.createTopics(allTopicSpecs());
      return log;
    }));
  }

  /** The analytics store, migrated. */
  analyticsStore(): Promise<AnalyticsStore> {
    return (this.analytics ??= openAnalyticsStore(this.config));
  }

  /** The control store, migrated. */
  controlStore(): Promise<ControlStore> {
    return (this.control ??= openControlStore(this.config));
  }

  async close(): Promise<void> {
    for (const opened of [this.log, this.analytics, this.control]) {
      if (opened) await (await opened).close();
    }
  }
}
