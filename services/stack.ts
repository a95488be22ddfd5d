/**
 * `npm start`: every part of tapeline in one process (services/parts/registry.ts), on the engines
 * the environment selects - the embedded twins by default, real servers when configured.
 */
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { PARTS, startParts } from './parts/registry.js';
import { PartResources } from './parts/resources.js';

export interface RunningStack {
  url: string;
  stop(): Promise<void>;
}

/** Starts every part; once `signal` aborts, the start gives up between its steps, closing what it opened, and rejects. */
export async function startStack(config: Config, logger: Logger, signal?: AbortSignal): Promise<RunningStack> {
  const resources = new PartResources(config, logger);
  const parts = await startParts(
    PARTS.map((part) => part.name),
    resources,
    signal,
  );
  const url = resources.local.apiUrl ?? '';
  logger.info({ url, dataDir: config.dataDir, upstream: config.upstream }, 'tapeline is serving');
  return { url, stop: parts.stop };
}

/**
 * Runs what `start` starts until SIGINT or SIGTERM, and a signal that arrives while it is still
 * starting stops it too (a supervisor may stop a service at any time): the start is told through its
 * signal, gives up between its steps and closes what it opened, and the process exits 0 as after any
 * stop. Resolves once started; rejects with the start's own error, unless a signal ended the start.
 */
export async function startUntilSignal(start: (signal: AbortSignal) => Promise<{ stop(): Promise<void> }>, logger: Logger): Promise<void> {
  const starting = new AbortController();
  const started = start(starting.signal);
  stopOnSignals(async () => {
    starting.abort(new Error('stopped by a signal while starting'));
    const running = await started.catch(() => null);
    await running?.stop();
  }, logger);
  try {
    await started;
  } catch (error) {
    // The signal's handler finishes the stop and exits.
    if (!starting.signal.aborted) throw error;
  }
}

/**
 * A signal this soon after the first is the same request delivered twice: Ctrl-C under `npm start`
 * reaches the service from the terminal (the whole foreground group) and again from npm, which
 * forwards its own SIGINT to the script.
 */
const REPEATED_SIGNAL_MS = 1_000;

/** Stops on SIGINT/SIGTERM; a second signal, a second or more after the first, exits at once. */
function stopOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stoppingSince: number | null = null;
  const handler = (signal: NodeJS.Signals) => {
    if (stoppingSince !== null) {
      if (performance.now() - stoppingSince < REPEATED_SIGNAL_MS) return;
      process.exit(1);
    }
    stoppingSince = performance.now();
    logger.info({ signal }, 'stopping');
    const started = performance.now();
    stop().then(
      () => {
        // What is left after this line is the process's own exit (the engines' native teardown).
        logger.info({ ms: Math.round(performance.now() - started) }, 'stopped; exiting');
        process.exit(0);
      },
      (error) => {
        logger.error({ err: error }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
