/**
 * What a part is, apart from the list of parts (registry.ts), so part modules and the registry
 * that imports them do not import each other.
 */
import type { PartResources } from './resources.js';

export interface RunningPart {
  stop(): Promise<void>;
}

export interface PartDefinition {
  name: string;
  description: string;
  start(resources: PartResources): Promise<RunningPart>;
}
