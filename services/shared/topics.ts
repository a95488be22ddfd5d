/** Every topic in one place: name, partitions and the Avro schema its values follow. */
import type { TopicSpec } from '../ports/event-log.js';

export const TOPICS = {
  markets: { name: 'tapeline.markets.v1', partitions: 4, schema: 'market.upserted.v1' },
  trades: { name: 'tapeline.trades.v1', partitions: 8, schema: 'trade.executed.v1' },
  deadLetters: { name: 'tapeline.dead-letters.v1', partitions: 1, schema: 'dead-letter.v1' },
} as const;

export type TopicKey = keyof typeof TOPICS;

export function allTopicSpecs(): TopicSpec[] {
  return Object.values(TOPICS).map(({ name, partitions }) => ({ name, partitions }));
}
