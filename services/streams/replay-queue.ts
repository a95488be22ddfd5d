/**
 * The process's limit on runs of history (subscription.ts, "Fairness"): at most `concurrency` runs at
 * once over every subscription, and the waiting runs taken key by key in turn, not in arrival order,
 * so one key with many replays cannot hold another key's single replay behind all of them.
 *
 * A free slot goes to the key with the fewest runs going (a key over its share of the slots waits
 * while another key below it waits), among those to the key whose turn is oldest. A key's turn is
 * stamped when one of its runs starts; a key that starts waiting (none of its runs going or waiting)
 * comes just ahead of the key that started a run last and behind every other waiting key, which is
 * its place in a round robin. With one slot, keys A (20 runs waiting) and B (one run queued after them)
 * alternate: B's run is next. Nothing is reserved: a key alone uses every slot.
 *
 * p-limit and p-queue take tasks in arrival (or fixed priority) order and bottleneck's groups give each
 * key a limiter of its own without a shared cap, hence this module.
 */

interface KeyState {
  /** This key's runs going now. */
  running: number;
  /** Its runs waiting for a slot, in its own arrival order. */
  waiting: Array<() => void>;
  /** When its last run started (a count of starts); a key that just started waiting is placed by it. */
  turn: number;
  /** Breaks ties between keys that started waiting at the same place. */
  arrival: number;
}

export class ReplayQueue {
  /** Keys with a run going or waiting; a key's entry goes with its last run. */
  private readonly keys = new Map<string, KeyState>();
  private running = 0;
  private starts = 0;
  private arrivals = 0;

  constructor(readonly concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency: a positive integer (got ${concurrency})`);
  }

  /** Runs `task` in `key`'s turn; resolves or rejects with it. */
  run<T>(key: string, task: () => T | PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let state = this.keys.get(key);
      if (!state) {
        // Half a start before the latest one: behind every key waiting, ahead of the key that just had its turn.
        state = { running: 0, waiting: [], turn: this.starts - 0.5, arrival: this.arrivals++ };
        this.keys.set(key, state);
      }
      const owner = state;
      owner.waiting.push(() => {
        let result: Promise<T>;
        try {
          result = Promise.resolve(task());
        } catch (error) {
          result = Promise.reject(error);
        }
        result.then(resolve, reject).finally(() => this.finished(key, owner));
      });
      this.startWaiting();
    });
  }

  /** Runs going now (for tests and figures). */
  get active(): number {
    return this.running;
  }

  /** Runs waiting for a slot. */
  get pending(): number {
    let count = 0;
    for (const state of this.keys.values()) count += state.waiting.length;
    return count;
  }

  private finished(key: string, state: KeyState): void {
    state.running--;
    this.running--;
    if (state.running === 0 && state.waiting.length === 0) this.keys.delete(key);
    this.startWaiting();
  }

  private startWaiting(): void {
    while (this.running < this.concurrency) {
      const next = this.nextKey();
      if (!next) return;
      const start = next.waiting.shift()!;
      next.running++;
      this.running++;
      next.turn = ++this.starts;
      start();
    }
  }

  /** The waiting key with the fewest runs going, then the oldest turn; a scan of the keys with replays. */
  private nextKey(): KeyState | undefined {
    let best: KeyState | undefined;
    for (const state of this.keys.values()) {
      if (state.waiting.length === 0) continue;
      if (
        !best ||
        state.running < best.running ||
        (state.running === best.running && (state.turn < best.turn || (state.turn === best.turn && state.arrival < best.arrival)))
      )
        best = state;
    }
    return best;
  }
}
