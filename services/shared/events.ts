/**
 * Event types and their Avro codec. The schemas in schemas/ are the contract between ingest and
 * the consumers; values on the log are Avro binary so a schema violation fails at produce time,
 * not later in a consumer.
 */
import avro from 'avsc';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOPICS, type TopicKey } from './topics.js';

export type Source = 'polymarket' | 'simulator';

export interface TradeExecuted {
  event_id: string;
  source: Source;
  market_id: string;
  market_title: string;
  asset_id: string;
  wallet: string;
  side: 'buy' | 'sell';
  outcome: string;
  outcome_index: number;
  price: number;
  yes_price: number;
  size: number;
  size_usdc: number;
  timestamp_ms: number;
  tx_hash: string;
  ingested_at_ms: number;
}

export type MarketStatus = 'active' | 'closed' | 'resolved';

export interface MarketUpserted {
  event_id: string;
  source: Source;
  market_id: string;
  gamma_id: string;
  slug: string;
  title: string;
  category: string;
  event_id_upstream: string;
  event_slug: string;
  event_title: string;
  outcomes: string[];
  outcome_token_ids: string[];
  outcome_prices: number[];
  yes_index: number;
  status: MarketStatus;
  resolved_outcome: string | null;
  volume_total_usdc: number;
  volume_24h_usdc: number;
  liquidity_usdc: number;
  best_bid: number | null;
  best_ask: number | null;
  last_trade_price: number | null;
  neg_risk: boolean;
  start_ms: number | null;
  end_ms: number | null;
  closed_ms: number | null;
  created_ms: number | null;
  updated_at_ms: number;
  ingested_at_ms: number;
  // Added by Ingestion (schema defaults null, so older events still decode).
  uma_resolution_status?: string | null;
  accepting_orders?: boolean | null;
  neg_risk_market_id?: string | null;
  question_id?: string | null;
  tick_size?: number | null;
  resolved_at_ms?: number | null;
}

export interface DeadLetter {
  stage: 'ingest' | 'sink';
  source: string;
  origin: string;
  reason: string;
  raw: string;
  at_ms: number;
}

export interface EventsByTopic {
  markets: MarketUpserted;
  trades: TradeExecuted;
  deadLetters: DeadLetter;
  marketResolutions: MarketResolved;
  gammaEvents: GammaEventUpserted;
  series: SeriesUpserted;
  tags: TagUpserted;
  priceTicks: PriceTick;
  bookSnapshots: BookSnapshot;
  bookDeltas: BookDelta;
  walletActivity: WalletActivity;
  positions: PositionSnapshot;
  holders: HolderSnapshot;
  openInterest: OpenInterest;
}

export type {
  MarketResolved,
  GammaEventUpserted,
  SeriesUpserted,
  TagUpserted,
  PriceTick,
  BookLevel,
  BookSnapshot,
  BookDelta,
  WalletActivity,
  PositionSnapshot,
  HolderSnapshot,
  OpenInterest,
} from './ingestion-events.js';
import type {
  MarketResolved,
  GammaEventUpserted,
  SeriesUpserted,
  TagUpserted,
  PriceTick,
  BookSnapshot,
  BookDelta,
  WalletActivity,
  PositionSnapshot,
  HolderSnapshot,
  OpenInterest,
} from './ingestion-events.js';

const schemaDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schemas');

function loadType(schemaName: string): avro.Type {
  const schema = JSON.parse(fs.readFileSync(path.join(schemaDirectory, `${schemaName}.avsc`), 'utf8'));
  return avro.Type.forSchema(schema);
}

const types = Object.fromEntries(Object.entries(TOPICS).map(([key, topic]) => [key, loadType(topic.schema)])) as Record<
  TopicKey,
  avro.Type
>;

export function encodeEvent<K extends TopicKey>(topic: K, event: EventsByTopic[K]): Buffer {
  return types[topic].toBuffer(event);
}

export function decodeEvent<K extends TopicKey>(topic: K, bytes: Buffer): EventsByTopic[K] {
  return types[topic].fromBuffer(bytes) as EventsByTopic[K];
}

/** Reason an event does not fit its schema, or null when it does. */
export function schemaViolation<K extends TopicKey>(topic: K, event: EventsByTopic[K]): string | null {
  const paths: string[] = [];
  const valid = types[topic].isValid(event, { errorHook: (p) => paths.push(p.join('.')) });
  return valid ? null : `fields not matching ${TOPICS[topic].schema}: ${paths.join(', ') || '(record)'}`;
}

export function topicKeyOf(topicName: string): TopicKey | undefined {
  return (Object.keys(TOPICS) as TopicKey[]).find((key) => TOPICS[key].name === topicName);
}
