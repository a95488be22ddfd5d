/**
 * A trade as the API serves it (`Trade` of api/openapi.yaml), from a row of either source, and an
 * event read straight from the log (the live streams: a Data API trade, a chain fill) turned into the
 * same row the REST tape reads for it, so both serve one object with one number convention.
 */
import type { Trade } from '../../http/types.generated.js';
import type { ChainFill, ChainLedgerEvent, TradeExecuted } from '../../events/types.generated.js';
import { servedAmount } from '../../shared/decimal.js';
import { iso } from '../../shared/time.js';

export interface TradeRow {
  trade_id: string;
  market_id: string;
  market_title: string;
  wallet: string;
  side: 'buy' | 'sell';
  outcome: string;
  outcome_index: number;
  price: number;
  /** Exact micro-units as decimal strings (aliases apart from the columns, which WHERE compares as numbers). */
  shares_text: string;
  usdc_text: string;
  size: number;
  size_usdc: number;
  fee_text: string | null;
  fee_asset_text: 'usdc' | 'shares' | null;
  ts_ms: string;
  tx_hash: string;
  source: 'polymarket' | 'simulator';
  role: 'maker' | 'taker' | 'amm';
  block_number: string;
  log_index: number;
  origin: 'chain' | 'data_api';
}

export function presentTrade(t: TradeRow): Trade {
  const chain = t.origin === 'chain';
  return {
    trade_id: t.trade_id,
    market_id: t.market_id,
    market_title: t.market_title,
    wallet: t.wallet,
    role: t.role,
    side: t.side,
    outcome: t.outcome,
    outcome_index: Number(t.outcome_index),
    price: servedAmount(t.price),
    size_shares: servedAmount(chain ? BigInt(t.shares_text) : t.size),
    size_usdc: servedAmount(chain ? BigInt(t.usdc_text) : t.size_usdc),
    size_shares_micro: t.shares_text,
    size_usdc_micro: t.usdc_text,
    fee_micro: t.fee_text,
    fee_asset: t.fee_asset_text,
    timestamp: iso(t.ts_ms),
    block_number: chain ? Number(t.block_number) : null,
    log_index: chain ? Number(t.log_index) : null,
    tx_hash: t.tx_hash,
    origin: t.origin,
    source: t.source,
  };
}

/** A trade event as the `trades` table row the REST tape reads (its Data API branch: micro-units rounded from the floats). */
export function tradeRowOfEvent(t: TradeExecuted): TradeRow {
  return {
    trade_id: t.event_id,
    market_id: t.market_id,
    market_title: t.market_title,
    wallet: t.wallet,
    side: t.side,
    outcome: t.outcome,
    outcome_index: t.outcome_index,
    price: t.price,
    shares_text: String(microsLikeClickHouse(t.size)),
    usdc_text: String(microsLikeClickHouse(t.size_usdc)),
    size: t.size,
    size_usdc: t.size_usdc,
    fee_text: null,
    fee_asset_text: null,
    ts_ms: String(t.timestamp_ms),
    tx_hash: t.tx_hash,
    source: t.source,
    role: 'taker',
    block_number: '0',
    log_index: 0,
    origin: 'data_api',
  };
}

/**
 * A chain fill event as the row the REST tape's chain branch selects from chain_ledger (ledgerRow,
 * then routes.ts chainBranch): micro-units as the UInt64 columns print them, time the block's.
 */
export function tradeRowOfChainFill(e: ChainLedgerEvent & { fill: ChainFill }): TradeRow {
  const fill = e.fill;
  return {
    trade_id: e.event_id,
    market_id: e.market_id,
    market_title: e.market_title,
    wallet: e.wallet,
    side: fill.side,
    outcome: fill.outcome,
    outcome_index: fill.outcome_index,
    price: fill.price,
    shares_text: BigInt(fill.shares_micro).toString(),
    usdc_text: BigInt(fill.usdc_micro).toString(),
    size: 0,
    size_usdc: 0,
    fee_text: BigInt(fill.fee_micro).toString(),
    fee_asset_text: fill.fee_asset,
    ts_ms: String(e.block_time_ms),
    tx_hash: e.tx_hash,
    source: e.source,
    role: fill.role,
    block_number: String(e.block_number),
    log_index: e.log_index,
    origin: 'chain',
  };
}

/**
 * `toUInt64(round(x * 1000000))` as ClickHouse computes it for the REST tape: round() of a float
 * breaks ties to even (size_usdc = size x price can have a 7th decimal of 5), Math.round up.
 */
function microsLikeClickHouse(value: number): bigint {
  const scaled = value * 1e6;
  const floor = Math.floor(scaled);
  const fraction = scaled - floor;
  if (fraction === 0.5) return BigInt(floor % 2 === 0 ? floor : floor + 1);
  return BigInt(Math.round(scaled));
}
