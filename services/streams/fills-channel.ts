/**
 * `fills`: the chain's fills, both sides of every match (taker and maker), from the chain ledger
 * stream, as the same `Trade` object /v1/trades serves for that chain record (origin `chain`,
 * services/read-models/trades/present.ts), legacy AMM trades included (role `amm`). Filters market,
 * wallet, side, role (`taker` includes the AMM's, as /trades does), min_size. Tier 2, as
 * the REST tape. A reorg's retraction of a block is a `fill_retracted` message, and each fill message
 * names its block's hash, so a client drops exactly the fills the reorg voided.
 *
 * The chain ledger is keyed by ledger group (the neg-risk market id, else the condition id), not by
 * market: a market's fills are all in its group's partition, in the order the chain follower
 * published them (block, log index), so the order per market holds. Which partition that is depends
 * on the chain's view of the market (neg-risk or not), so a `market` filter still reads every
 * partition rather than trust the catalog's flag.
 */
import type { ChainFill, ChainLedgerEvent } from '../events/types.generated.js';
import type { StreamFillRetraction } from '../http/types.generated.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { chainLedger } from '../read-models/chain-ledger/streams.js';
import { presentTrade, tradeRowOfChainFill } from '../read-models/trades/present.js';
import type { Channel } from './channel.js';
import { marketOf, minSizeOf, oneOf, onlyFilters, walletOf } from './filters.js';

export interface FillFilters {
  market?: string;
  wallet?: string;
  side?: 'buy' | 'sell';
  role?: 'maker' | 'taker';
  /** Minimum size_usdc in micro-USDC. */
  minSizeMicro?: bigint;
}

const FILTERS = ['market', 'wallet', 'side', 'role', 'min_size'] as const;

async function parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore): Promise<FillFilters> {
  onlyFilters(input, prefix, 'fills', FILTERS);
  return {
    market: await marketOf(input.market, prefix, store),
    wallet: walletOf(input.wallet, prefix),
    side: oneOf(input.side, prefix, 'side', ['buy', 'sell'] as const),
    role: oneOf(input.role, prefix, 'role', ['maker', 'taker'] as const),
    minSizeMicro: minSizeOf(input.min_size, prefix),
  };
}

function retractionOf(e: ChainLedgerEvent): StreamFillRetraction {
  return { block_number: e.block_number, block_hash: e.block_hash, ledger_group: e.ledger_group };
}

export const fillsChannel: Channel<FillFilters> = {
  filters: FILTERS,
  name: 'fills',
  access: 'tier2',
  resyncFrom: '/v1/markets/{id}/trades?role=all',
  streams: [chainLedger],
  parseFilters,
  partitionKey: () => undefined,
  select(_stream, event, filters) {
    const e = event as ChainLedgerEvent;
    // Every subscription hears of a retraction whatever its filters: they are rare (a reorg deeper
    // than the confirmations), and a client drops the fills it holds of that block (none when the
    // block held none of its fills); the event names a ledger group, not the markets or wallets in it.
    if (e.kind === 'block_retracted') return { type: 'fill_retracted', data: retractionOf(e) };
    // The ledger also carries splits, merges, redemptions, conversions, transfers and watermarks.
    if (e.kind !== 'fill' || e.fill === null) return null;
    const fill: ChainFill = e.fill;
    if (filters.market !== undefined && e.market_id !== filters.market) return null;
    if (filters.wallet !== undefined && e.wallet !== filters.wallet) return null;
    if (filters.side !== undefined && fill.side !== filters.side) return null;
    // A legacy AMM trade is a taker record (one per trade, the pool its only counterparty), as in /trades.
    if (filters.role !== undefined && (fill.role === 'amm' ? 'taker' : fill.role) !== filters.role) return null;
    if (filters.minSizeMicro !== undefined && BigInt(fill.usdc_micro) < filters.minSizeMicro) return null;
    return { type: 'fill', block_hash: e.block_hash, data: presentTrade(tradeRowOfChainFill({ ...e, fill })) };
  },
};
