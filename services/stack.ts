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

export async function startStack(config: Config, logger: Logger): Promise<RunningStack> {
  const resources = new PartResources(config, logger);
  const parts = await startParts(
    PARTS.map((part) => part.name),
    resources,
  );
  const url = resources.local.apiUrl ?? '';
  logger.info({ url, dataDir: config.dataDir, upstream: config.upstream }, 'tapeline is serving');
  return { url, stop: parts.stop };
}

/** Stops on SIGINT/SIGTERM; a second signal exits at once. */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
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
