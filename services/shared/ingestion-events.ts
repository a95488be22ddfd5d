/**
 * Event types added by Ingestion (issue 3); each mirrors its Avro schema in schemas/. Kept in their
 * own module so services/shared/events.ts only gains re-exports and map entries.
 * All timestamps are epoch milliseconds; prices are USDC per share in 0..1; sizes are shares.
 */
import type { Source } from './events.js';

export interface MarketResolved {
  event_id: string;
  source: Source;
  market_id: string;
  gamma_id: string;
  slug: string;
  title: string;
  outcomes: string[];
  outcome_token_ids: string[];
  winning_outcome: string | null;
  winning_outcome_index: number;
  winning_asset_id: string | null;
  payouts: number[];
  resolved_at_ms: number | null;
  origin: 'gamma' | 'clob-ws' | 'clob-rest';
  ingested_at_ms: number;
}

export interface GammaEventUpserted {
  event_id: string;
  source: Source;
  gamma_event_id: string;
  slug: string;
  title: string;
  category: string;
  active: boolean;
  closed: boolean;
  archived: boolean;
  neg_risk: boolean;
  neg_risk_market_id: string | null;
  start_ms: number | null;
  end_ms: number | null;
  closed_ms: number | null;
  volume_usdc: number;
  volume_24h_usdc: number;
  liquidity_usdc: number;
  open_interest_usdc: number;
  market_ids: string[];
  series_ids: string[];
  tag_ids: string[];
  updated_at_ms: number;
  ingested_at_ms: number;
}

export interface SeriesUpserted {
  event_id: string;
  source: Source;
  series_id: string;
  slug: string;
  ticker: string;
  title: string;
  series_type: string;
  recurrence: string;
  active: boolean;
  closed: boolean;
  archived: boolean;
  volume_usdc: number;
  volume_24h_usdc: number;
  liquidity_usdc: number;
  event_ids: string[];
  created_ms: number | null;
  updated_at_ms: number;
  ingested_at_ms: number;
}

export interface TagUpserted {
  event_id: string;
  source: Source;
  tag_id: string;
  label: string;
  slug: string;
  force_show: boolean;
  created_ms: number | null;
  updated_at_ms: number;
  ingested_at_ms: number;
}

export type PriceTickKind = 'last_trade' | 'midpoint' | 'best_bid_ask' | 'history';

export interface PriceTick {
  event_id: string;
  source: Source;
  market_id: string;
  asset_id: string;
  kind: PriceTickKind;
  price: number;
  best_bid: number | null;
  best_ask: number | null;
  side: string | null;
  size: number | null;
  timestamp_ms: number;
  origin: 'clob-ws' | 'clob-rest' | 'prices-history';
  ingested_at_ms: number;
}

export interface BookLevel {
  price: number;
  size: number;
}

export interface BookSnapshot {
  event_id: string;
  source: Source;
  market_id: string;
  asset_id: string;
  hash: string;
  timestamp_ms: number;
  /** Best (highest) first. */
  bids: BookLevel[];
  /** Best (lowest) first. */
  asks: BookLevel[];
  best_bid: number | null;
  best_ask: number | null;
  tick_size: number | null;
  min_order_size: number | null;
  last_trade_price: number | null;
  origin: 'clob-rest' | 'clob-ws' | 'clob-ws-replay';
  ingested_at_ms: number;
}

export interface BookDelta {
  event_id: string;
  source: Source;
  market_id: string;
  asset_id: string;
  side: 'bid' | 'ask';
  price: number;
  size: number;
  hash: string;
  best_bid: number | null;
  best_ask: number | null;
  timestamp_ms: number;
  ingested_at_ms: number;
}

export interface WalletActivity {
  event_id: string;
  source: Source;
  wallet: string;
  market_id: string;
  type: string;
  asset_id: string;
  side: string;
  outcome: string;
  outcome_index: number;
  size: number;
  usdc_size: number;
  price: number;
  tx_hash: string;
  timestamp_ms: number;
  ingested_at_ms: number;
}

export interface PositionSnapshot {
  event_id: string;
  source: Source;
  wallet: string;
  market_id: string;
  asset_id: string;
  outcome: string;
  outcome_index: number;
  size: number;
  avg_price: number;
  initial_value_usdc: number;
  current_value_usdc: number;
  cash_pnl_usdc: number;
  realized_pnl_usdc: number;
  total_bought: number;
  cur_price: number;
  redeemable: boolean;
  mergeable: boolean;
  neg_risk: boolean;
  snapshot_at_ms: number;
  ingested_at_ms: number;
}

export interface HolderSnapshot {
  event_id: string;
  source: Source;
  market_id: string;
  asset_id: string;
  wallet: string;
  outcome_index: number;
  amount: number;
  rank: number;
  snapshot_at_ms: number;
  ingested_at_ms: number;
}

export interface OpenInterest {
  event_id: string;
  source: Source;
  market_id: string;
  value_usdc: number;
  snapshot_at_ms: number;
  ingested_at_ms: number;
}
