/** Every topic in one place: name, partitions and the Avro schema its values follow. */
import type { TopicSpec } from '../ports/event-log.js';

export const TOPICS = {
  markets: { name: 'tapeline.markets.v1', partitions: 4, schema: 'market.upserted.v1' },
  trades: { name: 'tapeline.trades.v1', partitions: 8, schema: 'trade.executed.v1' },
  deadLetters: { name: 'tapeline.dead-letters.v1', partitions: 1, schema: 'dead-letter.v1' },
  // Ingestion (issue 3): catalog, resolutions, CLOB prices and books, tracked wallets.
  marketResolutions: { name: 'tapeline.market-resolutions.v1', partitions: 4, schema: 'market.resolved.v1' },
  gammaEvents: { name: 'tapeline.gamma-events.v1', partitions: 2, schema: 'gamma.event.upserted.v1' },
  series: { name: 'tapeline.series.v1', partitions: 1, schema: 'series.upserted.v1' },
  tags: { name: 'tapeline.tags.v1', partitions: 1, schema: 'tag.upserted.v1' },
  priceTicks: { name: 'tapeline.price-ticks.v1', partitions: 8, schema: 'price.tick.v1' },
  bookSnapshots: { name: 'tapeline.book-snapshots.v1', partitions: 8, schema: 'book.snapshot.v1' },
  bookDeltas: { name: 'tapeline.book-deltas.v1', partitions: 8, schema: 'book.delta.v1' },
  walletActivity: { name: 'tapeline.wallet-activity.v1', partitions: 4, schema: 'wallet.activity.v1' },
  positions: { name: 'tapeline.positions.v1', partitions: 4, schema: 'position.snapshot.v1' },
  holders: { name: 'tapeline.holders.v1', partitions: 4, schema: 'holder.snapshot.v1' },
  openInterest: { name: 'tapeline.open-interest.v1', partitions: 2, schema: 'open-interest.v1' },
} as const;

export type TopicKey = keyof typeof TOPICS;

export function allTopicSpecs(): TopicSpec[] {
  return Object.values(TOPICS).map(({ name, partitions }) => ({ name, partitions }));
}
