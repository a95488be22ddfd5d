/**
 * The parts of tapeline that can run as their own processes (`npm run service -- <part>...`).
 * A part starts from shared resources and returns something to stop. To add one, write a module
 * exporting a PartDefinition and append it to PARTS.
 */
import type { PartResources } from './resources.js';
import { apiPart } from './api-part.js';
import { ingestPart } from './ingest-part.js';
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

export const PARTS: PartDefinition[] = [ingestPart, sinkPart, signalsPart, webhooksPart, apiPart];

export function findPart(name: string): PartDefinition | undefined {
  return PARTS.find((part) => part.name === name);
}
