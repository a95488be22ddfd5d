/**
 * The single member of a consumer group in this process. It serves the subscribed partitions
 * round-robin, one batch at a time: read a batch from the committed position, hand it to the
 * handler, commit lastOffset + 1 only after the handler resolved. A failing handler gets the same
 * batch again after a back-off; the loop never skips ahead of an unhandled batch (at-least-once).
 */
import type { ConsumerOptions, LogMessage, MessageBatch } from '../ports/event-log.js';
import { type BackoffPolicy, backoffMs } from '../shared/backoff.js';
import type { GroupOffsets } from './offset-store.js';
import { OffsetOutOfRangeError, type PartitionLog } from './partition-log.js';
import type { StoredRecord } from './record-codec.js';

const DEFAULT_MAX_BATCH_SIZE = 1000;
/** In-process retries of a failing batch: 50 ms doubling to 2 s, no jitter (one consumer, nobody to spread from). */
const RETRY_BACKOFF: BackoffPolicy = { baseMs: 50, maxMs: 2000, jitter: 'none' };

export interface Assignment {
  topic: string;
  partition: number;
  file: PartitionLog;
  /** Next offset to hand to the handler; equals the committed offset between batches. */
  nextOffset: number;
}

export interface ConsumerLoopDependencies {
  options: ConsumerOptions;
  assignments: Assignment[];
  offsets: GroupOffsets;
  saveOffsets: (offsets: GroupOffsets) => Promise<void>;
  /** How often to look for records appended by other processes (and the idle wake-up period). */
  pollIntervalMs: number;
}

const STOPPED = Symbol('stopped');

export function retryDelayMs(failures: number): number {
  return backoffMs(RETRY_BACKOFF, failures);
}

export class ConsumerLoop {
  private stopping = false;
  /** Ends the current idle wait or back-off early. */
  private interruptSleep: (() => void) | null = null;
  /** Idle waits end when records arrive; back-offs only end early on stop. */
  private sleepEndsOnNewRecords = false;
  private nextAssignmentIndex = 0;
  private lastRefreshAt = 0;
  private readonly maxBatchSize: number;
  private readonly finished: Promise<void>;

  constructor(private readonly deps: ConsumerLoopDependencies) {
    this.maxBatchSize = deps.options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
    this.finished = this.run();
  }

  /** Called when this process appended to one of the subscribed topics. */
  notifyAppended(): void {
    if (this.sleepEndsOnNewRecords) this.interruptSleep?.();
  }

  /**
   * Resolves once the batch in flight (handler and commit) settled; no handler runs after that.
   * Awaiting it from inside the handler would wait for itself, so a handler must not do that.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.interruptSleep?.();
    await this.finished;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      await this.refreshIfDue();
      const assignment = this.nextAssignmentWithBacklog();
      // No await between the backlog check and arming the sleep, so an append cannot slip between them.
      if (assignment) await this.serve(assignment);
      else await this.sleep(this.deps.pollIntervalMs, { endsOnNewRecords: true });
    }
  }

  /** Round-robin: start looking after the partition served last, so a busy one cannot starve the rest. */
  private nextAssignmentWithBacklog(): Assignment | undefined {
    const { assignments } = this.deps;
    for (let step = 0; step < assignments.length; step++) {
      const index = (this.nextAssignmentIndex + step) % assignments.length;
      const assignment = assignments[index]!;
      if (assignment.nextOffset < assignment.file.endOffset) {
        this.nextAssignmentIndex = (index + 1) % assignments.length;
        return assignment;
      }
    }
    return undefined;
  }

  private async serve(assignment: Assignment): Promise<void> {
    const { options } = this.deps;
    const firstOffset = assignment.nextOffset;
    let outOfRange: OffsetOutOfRangeError | null = null;
    const records = await this.retryUntilStopped(
      async () => {
        try {
          return await assignment.file.read(firstOffset, this.maxBatchSize);
        } catch (error) {
          if (!(error instanceof OffsetOutOfRangeError)) throw error;
          outOfRange = error;
          return [];
        }
      },
      // A read failure has no messages to show; the empty batch still tells where it happened.
      (error) => this.report(error, toBatch(assignment, firstOffset, [])),
    );
    if (outOfRange !== null) {
      // Retention forced out records this group had not read (the hard cap): it is told, and goes on
      // from the first record still held, as Kafka's auto.offset.reset=earliest.
      this.report(outOfRange, toBatch(assignment, firstOffset, []));
      assignment.nextOffset = (outOfRange as OffsetOutOfRangeError).logStartOffset;
      return;
    }
    if (records === STOPPED || records.length === 0) return;
    const batch = toBatch(assignment, firstOffset, records);

    const handled = await this.retryUntilStopped(
      () => options.handleBatch(batch),
      (error) => this.report(error, batch),
    );
    if (handled === STOPPED) return;

    const nextOffset = batch.lastOffset + 1;
    const committed = await this.retryUntilStopped(
      () => {
        this.deps.offsets.set(assignment.topic, assignment.partition, nextOffset);
        return this.deps.saveOffsets(this.deps.offsets);
      },
      (error) => this.report(error, batch),
      { attemptEvenIfStopping: true },
    );
    // If the commit never landed, a later consumer of the group redelivers the batch.
    if (committed !== STOPPED) assignment.nextOffset = nextOffset;
  }

  /** Retries `attempt` with exponential back-off until it resolves or the consumer is stopped. */
  private async retryUntilStopped<T>(
    attempt: () => Promise<T>,
    reportFailure: (error: unknown) => void,
    { attemptEvenIfStopping = false } = {},
  ): Promise<T | typeof STOPPED> {
    for (let failures = 0; ; ) {
      if (this.stopping && !(attemptEvenIfStopping && failures === 0)) return STOPPED;
      try {
        return await attempt();
      } catch (error) {
        failures++;
        reportFailure(error);
        if (this.stopping) return STOPPED;
        await this.sleep(retryDelayMs(failures), { endsOnNewRecords: false });
      }
    }
  }

  private async refreshIfDue(): Promise<void> {
    const now = Date.now();
    if (now - this.lastRefreshAt < this.deps.pollIntervalMs) return;
    this.lastRefreshAt = now;
    await Promise.all(
      this.deps.assignments.map((assignment) =>
        assignment.file.refresh().catch((error: unknown) => {
          // Retried at the next poll; reported like a read failure of that partition.
          this.report(error, toBatch(assignment, assignment.nextOffset, []));
        }),
      ),
    );
  }

  private report(error: unknown, batch: MessageBatch): void {
    try {
      this.deps.options.onError?.(error, batch);
    } catch {
      // A throwing error callback (logging, metrics) must not break delivery.
    }
  }

  private sleep(ms: number, { endsOnNewRecords }: { endsOnNewRecords: boolean }): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.interruptSleep = null;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.interruptSleep = finish;
      this.sleepEndsOnNewRecords = endsOnNewRecords;
    });
  }
}

function toBatch(assignment: Assignment, firstOffset: number, records: StoredRecord[]): MessageBatch {
  const messages = records.map(
    (record, index): LogMessage => ({
      topic: assignment.topic,
      partition: assignment.partition,
      offset: firstOffset + index,
      key: record.key,
      value: record.value,
      headers: record.headers,
      timestamp: record.timestamp,
    }),
  );
  return {
    topic: assignment.topic,
    partition: assignment.partition,
    messages,
    firstOffset,
    lastOffset: firstOffset + records.length - 1,
  };
}
