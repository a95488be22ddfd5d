/**
 * Admission to the analytics engine, fair across callers. chDB runs one statement at a time per
 * process (a ClickHouse server runs many), so whoever queues first would otherwise go first: one
 * caller with a thousand queries would put everyone else behind them. Here each lane (an account,
 * or the pipeline's own work) has its own queue and lanes take turns, so a query waits for at most
 * one query of each other busy lane. A request lane holds at most `maxQueuedPerLane` waiting
 * queries (more is the caller's 429), all lanes together at most `maxQueued` (503), and nothing waits
 * longer than `maxWaitMs`: a query that waited that long behind its own lane's earlier queries is
 * the caller's doing (429, send fewer at once); one that waited with nothing of its own ahead is the
 * service's (503).
 */
import { AnalyticsBusyError } from './store-errors.js';

export interface FairQueueOptions {
  /** Statements the engine runs at once: 1 for chDB. */
  concurrency: number;
  maxQueuedPerLane: number;
  maxQueued: number;
  maxWaitMs: number;
}

interface Task {
  start: () => void;
  fail: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

export interface FairQueueStats {
  running: number;
  queued: number;
  lanes: number;
  rejected: number;
}

export class FairQueue {
  private readonly lanes = new Map<string, Task[]>();
  /** Lanes with waiting tasks, in turn order. */
  private readonly turn: string[] = [];
  private running = 0;
  private queued = 0;
  private rejected = 0;

  constructor(private readonly options: FairQueueOptions) {}

  stats(): FairQueueStats {
    return { running: this.running, queued: this.queued, lanes: this.turn.length, rejected: this.rejected };
  }

  /** Runs `work` when it is this lane's turn; `limited` lanes (requests) are subject to the queue caps. */
  run<T>(lane: string, limited: boolean, work: () => Promise<T>): Promise<T> {
    if (this.running < this.options.concurrency && this.queued === 0) return this.execute(work);
    const waiting = this.lanes.get(lane);
    if (limited) {
      if ((waiting?.length ?? 0) >= this.options.maxQueuedPerLane) {
        this.rejected++;
        return Promise.reject(
          new AnalyticsBusyError(
            'lane_full',
            `this key already has ${this.options.maxQueuedPerLane} queries waiting; wait for them before sending more`,
            1,
          ),
        );
      }
      if (this.queued >= this.options.maxQueued) {
        this.rejected++;
        return Promise.reject(new AnalyticsBusyError('queue_full', 'the analytics engine is at capacity; retry shortly', 1));
      }
    }
    return new Promise<T>((resolve, reject) => {
      const task: Task = {
        start: () => {
          if (task.timer) clearTimeout(task.timer);
          this.execute(work).then(resolve, reject);
        },
        fail: reject,
        timer: undefined,
      };
      if (limited) {
        task.timer = setTimeout(() => this.expire(lane, task), this.options.maxWaitMs);
        task.timer.unref();
      }
      if (waiting) waiting.push(task);
      else {
        this.lanes.set(lane, [task]);
        this.turn.push(lane);
      }
      this.queued++;
    });
  }

  private async execute<T>(work: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.next();
    }
  }

  private next(): void {
    while (this.running < this.options.concurrency && this.turn.length > 0) {
      const lane = this.turn.shift()!;
      const tasks = this.lanes.get(lane)!;
      const task = tasks.shift()!;
      this.queued--;
      if (tasks.length > 0) this.turn.push(lane);
      else this.lanes.delete(lane);
      task.start();
    }
  }

  private expire(lane: string, task: Task): void {
    const tasks = this.lanes.get(lane);
    const index = tasks?.indexOf(task) ?? -1;
    if (!tasks || index < 0) return;
    tasks.splice(index, 1);
    this.queued--;
    if (tasks.length === 0) {
      this.lanes.delete(lane);
      this.turn.splice(this.turn.indexOf(lane), 1);
    }
    this.rejected++;
    task.fail(
      index > 0
        ? new AnalyticsBusyError(
            'lane_full',
            `the query waited ${this.options.maxWaitMs} ms behind this key's own earlier queries; send fewer at once`,
            1,
          )
        : new AnalyticsBusyError(
            'queue_timeout',
            `the query waited ${this.options.maxWaitMs} ms for the analytics engine; retry shortly`,
            1,
          ),
    );
  }
}
