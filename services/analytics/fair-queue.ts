/**
 * Admission to the analytics engine, fair across callers. chDB runs one statement at a time per
 * process (a ClickHouse server runs many), so whoever queues first would otherwise go first: one
 * caller with a thousand queries would put everyone else behind them. Here each lane (an account,
 * or the pipeline's own work) has its own queue, and the next statement comes from the lane that has
 * used the engine least lately (engine time, decaying with a 10 s half-life; ties in turn order): a
 * caller who asks little goes ahead of one who keeps the engine busy, and waits for at most the
 * statement running. A request lane holds at most `maxQueuedPerLane` waiting
 * queries (more is the caller's 429), all lanes together at most `maxQueued` (503), and nothing waits
 * longer than `maxWaitMs`: a query that waited that long while its own lane had other queries
 * waiting or running beside it, or after its lane used the engine well above the average lane lately, is the caller's doing
 * (429, send fewer at once); one from a light caller with nothing else of its own is the service's (503).
 * "Beside it" is over the whole wait, not at its end: a burst's queries time out one after another, and
 * the last of them, alone by then, is as much the burst's as the first.
 * A waiting statement whose caller has gone (its request's `signal`: the answer was sent, or the client
 * closed the connection) leaves the queue without running: a client that sends a burst and hangs up, or
 * a request answered while a statement it ran beside another still waits, would otherwise keep its
 * lane full, and the engine busy, for answers no one reads.
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
  /** Another query of its lane waited or ran while this one waited. */
  crowded: boolean;
  /** Stops listening to the caller's signal (the task started, expired or was refused). */
  release: () => void;
}

/** Engine time a lane used, decaying: `ms` as of `atMs`. */
interface Usage {
  ms: number;
  atMs: number;
}

const HALF_LIFE_MS = 10_000;
/** A lane that used more than this many times the average engine time of the lanes lately is a heavy user. */
const HEAVY_FACTOR = 2;

export interface FairQueueStats {
  running: number;
  queued: number;
  lanes: number;
  rejected: number;
  /** Waiting statements dropped because their caller had gone. */
  abandoned: number;
}

export class FairQueue {
  private readonly lanes = new Map<string, Task[]>();
  /** Lanes with waiting tasks, in turn order. */
  private readonly turn: string[] = [];
  /** Recent engine time per lane (only lanes seen in the last minutes stay: see `decayed`). */
  private readonly usage = new Map<string, Usage>();
  /** Statements running per lane. */
  private readonly runningIn = new Map<string, number>();
  private running = 0;
  private queued = 0;
  private rejected = 0;
  private abandoned = 0;
  /** Set by `close`: the error every later statement is refused with. */
  private closedWith: Error | undefined;
  private onIdle: (() => void) | undefined;

  constructor(private readonly options: FairQueueOptions) {}

  stats(): FairQueueStats {
    return { running: this.running, queued: this.queued, lanes: this.turn.length, rejected: this.rejected, abandoned: this.abandoned };
  }

  /**
   * Runs `work` when it is this lane's turn; `limited` lanes (requests) are subject to the queue caps.
   * Once `signal` aborts (the caller has gone) the statement is not started: it is refused as `caller_gone`.
   */
  run<T>(lane: string, limited: boolean, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (signal?.aborted) {
      this.abandoned++;
      return Promise.reject(callerGone());
    }
    if (this.running < this.options.concurrency && this.queued === 0) return this.execute(lane, work);
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
      const abandon = () => {
        if (this.remove(lane, task) < 0) return;
        this.abandoned++;
        task.fail(callerGone());
      };
      const task: Task = {
        start: () => {
          task.release();
          this.execute(lane, work).then(resolve, reject);
        },
        fail: (error) => {
          task.release();
          reject(error);
        },
        timer: undefined,
        crowded: (waiting?.length ?? 0) > 0 || (this.runningIn.get(lane) ?? 0) > 0,
        release: () => {
          if (task.timer) clearTimeout(task.timer);
          signal?.removeEventListener('abort', abandon);
        },
      };
      signal?.addEventListener('abort', abandon, { once: true });
      if (limited) {
        task.timer = setTimeout(() => this.expire(lane, task), this.options.maxWaitMs);
        task.timer.unref();
      }
      if (waiting) {
        // Only a request lane's waits time out (and it holds at most maxQueuedPerLane): the pipeline's
        // backlog, unbounded, is not walked on every statement.
        if (limited) for (const other of waiting) other.crowded = true;
        waiting.push(task);
      } else {
        this.lanes.set(lane, [task]);
        this.turn.push(lane);
      }
      this.queued++;
    });
  }

  /**
   * Refuses every waiting and later statement with `reason`, and resolves once the running ones have
   * ended: chDB runs a statement on its own thread, and closing the engine under one crashed the
   * process (a segfault in libchdb when the service stopped while a startup job's query ran).
   */
  close(reason: Error): Promise<void> {
    this.closedWith = reason;
    for (const tasks of this.lanes.values()) for (const task of tasks) task.fail(reason);
    this.lanes.clear();
    this.turn.length = 0;
    this.queued = 0;
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.onIdle = resolve;
    });
  }

  private async execute<T>(lane: string, work: () => Promise<T>): Promise<T> {
    this.running++;
    this.runningIn.set(lane, (this.runningIn.get(lane) ?? 0) + 1);
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.running--;
      const left = (this.runningIn.get(lane) ?? 1) - 1;
      if (left > 0) this.runningIn.set(lane, left);
      else this.runningIn.delete(lane);
      const now = Date.now();
      this.usage.set(lane, { ms: this.decayed(lane, now) + (performance.now() - started), atMs: now });
      this.next();
      if (this.running === 0) this.onIdle?.();
    }
  }

  /** Whether the lane used the engine well above the average lane lately (lighter lanes went first, so it waited). */
  private isHeavy(lane: string): boolean {
    const now = Date.now();
    const lanes = [...this.usage.keys()];
    const total = lanes.reduce((sum, name) => sum + this.decayed(name, now), 0);
    return lanes.length > 1 && this.decayed(lane, now) > (HEAVY_FACTOR * total) / lanes.length;
  }

  /** The lane's engine time, decayed to `now`; forgets lanes whose usage has faded. */
  private decayed(lane: string, now: number): number {
    const usage = this.usage.get(lane);
    if (!usage) return 0;
    const ms = usage.ms * 0.5 ** ((now - usage.atMs) / HALF_LIFE_MS);
    if (ms < 0.01) this.usage.delete(lane);
    return ms;
  }

  private next(): void {
    while (this.running < this.options.concurrency && this.turn.length > 0) {
      // The waiting lane that used the engine least lately; the turn order breaks ties.
      const now = Date.now();
      let pick = 0;
      let least = Number.POSITIVE_INFINITY;
      this.turn.forEach((candidate, index) => {
        const used = this.decayed(candidate, now);
        if (used < least) {
          least = used;
          pick = index;
        }
      });
      const [lane] = this.turn.splice(pick, 1) as [string];
      const tasks = this.lanes.get(lane)!;
      const task = tasks.shift()!;
      this.queued--;
      if (tasks.length > 0) this.turn.push(lane);
      else this.lanes.delete(lane);
      task.start();
    }
  }

  /** Takes a waiting task out of its lane: its place in the lane (-1: it was not waiting any more). */
  private remove(lane: string, task: Task): number {
    const tasks = this.lanes.get(lane);
    const index = tasks?.indexOf(task) ?? -1;
    if (!tasks || index < 0) return -1;
    tasks.splice(index, 1);
    this.queued--;
    if (tasks.length === 0) {
      this.lanes.delete(lane);
      this.turn.splice(this.turn.indexOf(lane), 1);
    }
    return index;
  }

  private expire(lane: string, task: Task): void {
    const index = this.remove(lane, task);
    if (index < 0) return;
    this.rejected++;
    // Waiting beside its own lane's queries (waiting or running), or after using the engine heavily
    // lately (lighter callers go first, so a heavy one waits) is the caller's doing.
    const ownWork = task.crowded || (this.runningIn.get(lane) ?? 0) > 0 || this.isHeavy(lane);
    task.fail(
      ownWork
        ? new AnalyticsBusyError(
            'lane_full',
            `the query waited ${this.options.maxWaitMs} ms beside this key's own other queries; send fewer at once`,
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

function callerGone(): AnalyticsBusyError {
  return new AnalyticsBusyError('caller_gone', 'the request was answered or closed by its caller before its query ran', 1);
}
