/**
 * The parts of tapeline. `npm start` runs all of them in one process (services/stack.ts);
 * `npm run service -- <part>...` runs the named ones. Both go through startParts with the same
 * PartResources, so guards, engines and links are the same however the parts are grouped.
 * To add a part, write a module exporting a PartDefinition and append it to PARTS (start order).
 */
import { apiPart } from './api-part.js';
import { copyPart } from './copy-part.js';
import { ingestPart } from './ingest-part.js';
import { sandboxPart } from './sandbox-part.js';
import { lifecyclePart } from './lifecycle-part.js';
import type { PartDefinition, RunningPart } from './part.js';
import type { PartResources } from './resources.js';
import { signalsPart } from './signals-part.js';
import { sinkPart } from './sink-part.js';
import { webhooksPart } from './webhooks-part.js';

/** In start order: writers before readers, the API last so it serves a ready process. */
export const PARTS: PartDefinition[] = [sinkPart, ingestPart, lifecyclePart, webhooksPart, signalsPart, copyPart, sandboxPart, apiPart];

export function findPart(name: string): PartDefinition | undefined {
  return PARTS.find((part) => part.name === name);
}

export interface RunningParts {
  /** Stops the parts in reverse start order, then closes the engines. */
  stop(): Promise<void>;
}

export async function startParts(names: readonly string[], resources: PartResources, signal?: AbortSignal): Promise<RunningParts> {
  const running: Array<{ name: string; part: RunningPart }> = [];
  const stop = async () => {
    // Reverse order: the API stops taking requests before the stores under it close. Each step's
    // time is logged, so a slow stop names what it waited for.
    for (const { name, part } of running.reverse()) {
      const started = performance.now();
      await part.stop();
      resources.logger.info({ part: name, ms: Math.round(performance.now() - started) }, 'part stopped');
    }
    const started = performance.now();
    await resources.close();
    resources.logger.info({ ms: Math.round(performance.now() - started) }, 'stores closed');
  };
  try {
    const parts = names.map((name) => {
      const part = findPart(name);
      if (!part) throw new Error(`unknown part ${name}`);
      return part;
    });
    await resources.open(new Set(parts.flatMap((part) => part.engines)));
    for (const part of parts) {
      // Stopped while starting (a signal): give up between steps, closing what started.
      signal?.throwIfAborted();
      const { name } = part;
      running.push({ name, part: await part.start(resources) });
      resources.logger.info({ part: name }, 'part started');
    }
    signal?.throwIfAborted();
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return { stop };
}
