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
import type { PartResources } from './resources.js';
import { signalsPart } from './signals-part.js';
import { sinkPart } from './sink-part.js';
import { webhooksPart } from './webhooks-part.js';

export interface RunningPart {
  stop(): Promise<void>;
}

export interface PartDefinition {
  name: string;
  description: string;
  start(resources: PartResources): Promise<RunningPart>;
}

/** In start order: writers before readers, the API last so it serves a ready process. */
export const PARTS: PartDefinition[] = [sinkPart, ingestPart, lifecyclePart, webhooksPart, signalsPart, copyPart, sandboxPart, apiPart];

export function findPart(name: string): PartDefinition | undefined {
  return PARTS.find((part) => part.name === name);
}

export interface RunningParts {
  /** Stops the parts in reverse start order, then closes the engines. */
  stop(): Promise<void>;
}

export async function startParts(names: readonly string[], resources: PartResources): Promise<RunningParts> {
  const running: RunningPart[] = [];
  const stop = async () => {
    // Reverse order: the API stops taking requests before the stores under it close.
    for (const part of running.reverse()) await part.stop();
    await resources.close();
  };
  try {
    for (const name of names) {
      const part = findPart(name);
      if (!part) throw new Error(`unknown part ${name}`);
      running.push(await part.start(resources));
      resources.logger.info({ part: name }, 'part started');
    }
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return { stop };
}
