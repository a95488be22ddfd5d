/**
 * Where the log ends, looked at once per STREAM_POLL_MS (and at once after an append in this process,
 * where the log tells) for every topic a stream in this process
 * reads, however many connections read it: a subscription that caught up waits here for the next
 * change instead of polling the log itself, then reads at its own pace.
 */
import type { EventLog, PartitionOffsets } from '../ports/event-log.js';

/** What the ends are read from: the event log, or the control store's account feed (services/copy/account-events.ts). */
export type EndsSource = Pick<EventLog, 'partitionOffsets' | 'onAppended'>;

interface Watched {
  offsets: PartitionOffsets[];
  readers: number;
}

export class LogEnds {
  private readonly watched = new Map<string, Watched>();
  private readonly waiters = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** An append arrived while a poll ran: poll again right after it. */
  private pollAgain = false;
  private readonly stopListening: () => void;

  constructor(
    private readonly log: EndsSource,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    // Appends made in this process (the one-process stack) are looked at at once rather than at the next poll.
    this.stopListening =
      log.onAppended?.((topic) => {
        if (this.watched.has(topic)) void this.poll();
      }) ?? (() => undefined);
  }

  /** The topic's offsets read now (a subscription starts from them), and watched until `release`. */
  async watch(topic: string): Promise<{ offsets: PartitionOffsets[]; release: () => void }> {
    const offsets = await this.log.partitionOffsets(topic);
    const entry = this.watched.get(topic);
    if (entry) {
      entry.readers++;
      if (changed(entry.offsets, offsets)) entry.offsets = offsets;
    } else this.watched.set(topic, { offsets, readers: 1 });
    this.timer ??= setInterval(() => void this.poll(), this.pollMs).unref();
    let released = false;
    return {
      offsets,
      release: () => {
        if (released) return;
        released = true;
        const watched = this.watched.get(topic);
        if (watched && --watched.readers === 0) this.watched.delete(topic);
        if (this.watched.size === 0) this.stopTimer();
      },
    };
  }

  /** The end offset of a partition as last seen (0 when the topic is not watched). */
  end(topic: string, partition: number): number {
    return this.watched.get(topic)?.offsets[partition]?.endOffset ?? 0;
  }

  /** Resolves when a watched topic's ends move, after `timeoutMs`, or when `wake` is called, whichever comes first. */
  changed(timeoutMs: number): { done: Promise<void>; wake: () => void } {
    let wake!: () => void;
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(() => wake(), Math.max(0, timeoutMs));
      wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
    });
    return { done, wake };
  }

  close(): void {
    this.stopListening();
    this.stopTimer();
    for (const wake of [...this.waiters]) wake();
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    this.pollAgain = false;
    let moved = false;
    try {
      for (const [topic, entry] of this.watched) {
        try {
          const offsets = await this.log.partitionOffsets(topic);
          if (changed(entry.offsets, offsets)) {
            entry.offsets = offsets;
            moved = true;
          }
        } catch (error) {
          // Tried again at the next poll; readers keep the ends they know.
          this.onError(error);
        }
      }
    } finally {
      this.polling = false;
    }
    if (moved) for (const wake of [...this.waiters]) wake();
    if (this.pollAgain) void this.poll();
  }
}

function changed(before: PartitionOffsets[], after: PartitionOffsets[]): boolean {
  return (
    before.length !== after.length || after.some((p, i) => p.endOffset !== before[i]!.endOffset || p.startOffset !== before[i]!.startOffset)
  );
}
