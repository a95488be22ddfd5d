/**
 * Records that could not be normalized (ingest) or decoded (sink), with the reason and the raw
 * payload, so bad upstream data is counted and kept instead of stopping a partition.
 */
import { defineStream } from './stream.js';

export type { DeadLetter } from './types.generated.js';

export const deadLetters = defineStream({
  name: 'deadLetters',
  topic: 'tapeline.dead-letters.v1',
  partitions: 1,
  schema: 'dead-letter.v1',
  key: (entry) => entry.origin,
  time: (entry) => entry.at_ms,
});
