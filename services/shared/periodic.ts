/** Runs a task now and then every interval after the previous run settles (never overlapping). */
export interface PeriodicTask {
  stop(): Promise<void>;
  /** Settles when the first run (started at once) is done. */
  readonly firstRun: Promise<void>;
  /** Runs the task now (after any run in flight) and resolves when that run is done. */
  runNow(): Promise<void>;
}

/**
 * `task` gets a signal that stop() aborts: a long run (minutes on a loaded machine: copy picks replay
 * every candidate's fills) checks it between steps, so a stop does not wait for the whole run. What a
 * run aborted this way throws is not an error.
 */
export function runPeriodically(
  task: (signal: AbortSignal) => Promise<void>,
  intervalMs: number,
  onError: (error: unknown) => void,
): PeriodicTask {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const stopping = new AbortController();

  const run = (): Promise<void> => {
    current = current.then(async () => {
      if (stopped) return;
      try {
        await task(stopping.signal);
      } catch (error) {
        if (!stopping.signal.aborted) onError(error);
      }
    });
    return current;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void run().then(schedule), intervalMs);
  };
  const firstRun = run();
  void firstRun.then(schedule);

  return {
    firstRun,
    runNow: run,
    async stop() {
      stopped = true;
      stopping.abort();
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
