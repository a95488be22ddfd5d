/**
 * Every read model, one line each. The publisher (stream names and keys), the event log (topics),
 * the sink (projections), the migrator, the API (routes), the sink part (jobs) and the tests all
 * iterate this list; docs/ARCHITECTURE.md says what else a new read model touches.
 */
import { deadLetters } from '../events/dead-letters.js';
import { signals } from '../signals/signal-stream.js';
import type { Stream } from '../events/stream.js';
import type { TopicSpec } from '../ports/event-log.js';
import { candlesReadModel } from './candles/index.js';
import { catalogReadModel } from './catalog/index.js';
import { chainLedgerReadModel } from './chain-ledger/index.js';
import { copyPicksReadModel } from './copy-picks/index.js';
import { holdersReadModel } from './holders/index.js';
import { marketLifecycleReadModel } from './market-lifecycle/index.js';
import { marketResolutionsReadModel } from './market-resolutions/index.js';
import { marketsReadModel } from './markets/index.js';
import { marksReadModel } from './marks/index.js';
import { openInterestReadModel } from './open-interest/index.js';
import { orderBooksReadModel } from './order-books/index.js';
import { priceTicksReadModel } from './price-ticks/index.js';
import type { Projection, ReadModel } from './read-model.js';
import { positionsReadModel } from './positions/index.js';
import { traderStatsReadModel } from './trader-stats/index.js';
import { tradesReadModel } from './trades/index.js';
import { walletsReadModel } from './wallets/index.js';

const DEFINITIONS = [
  marketsReadModel,
  tradesReadModel,
  candlesReadModel,
  marketResolutionsReadModel,
  marketLifecycleReadModel,
  catalogReadModel,
  priceTicksReadModel,
  orderBooksReadModel,
  walletsReadModel,
  holdersReadModel,
  openInterestReadModel,
  chainLedgerReadModel,
  marksReadModel,
  positionsReadModel,
  traderStatsReadModel,
  copyPicksReadModel,
] as const satisfies readonly ReadModel[];

export const READ_MODELS: readonly ReadModel[] = DEFINITIONS;

type Union<T> = (T extends unknown ? (value: T) => void : never) extends (value: infer I) => void ? I : never;
type AllStreams = Union<(typeof DEFINITIONS)[number]['streams']> & { deadLetters: typeof deadLetters; signals: typeof signals };

/**
 * Every stream by name, typed: `STREAMS.trades` is a Stream<TradeExecuted>. Dead letters and signals
 * belong to no read model: nothing projects them into a table.
 */
export const STREAMS: AllStreams = Object.assign({ deadLetters, signals }, ...DEFINITIONS.map((model) => model.streams));

export type StreamName = keyof AllStreams;

export const ALL_STREAMS: readonly Stream[] = Object.values(STREAMS);

export const ALL_PROJECTIONS: readonly Projection[] = READ_MODELS.flatMap((model): Projection[] => [...model.projections]);

/** The admin step's topic list: every stream's topic with its partition count. */
export function allTopicSpecs(): TopicSpec[] {
  return ALL_STREAMS.map(({ topic, partitions }) => ({ name: topic, partitions }));
}

/** The Avro value schema of every topic, for the schema registry (Kafka) or the file log's schema store. */
export function topicSchemas(): Array<{ topic: string; schema: Record<string, unknown> }> {
  return ALL_STREAMS.map((stream) => ({ topic: stream.topic, schema: stream.codec.schema }));
}
