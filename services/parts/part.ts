/**
 * What a part is, apart from the list of parts (registry.ts), so part modules and the registry
 * that imports them do not import each other.
 */
import type { PartEngine, PartResources } from './resources.js';

export interface RunningPart {
  stop(): Promise<void>;
}

export interface PartDefinition {
  name: string;
  description: string;
  /** Opened for every part of a process at once before the first part starts (PartResources.open). */
  engines: readonly PartEngine[];
  start(resources: PartResources): Promise<RunningPart>;
}
