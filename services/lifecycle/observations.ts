/**
 * Each stream that reports on a market's lifecycle, turned into observations for the state machine.
 * A new authority plugs in as one more entry here: its stream and a function from its event to an
 * Observation (or null when the event reports nothing about the lifecycle).
 */
import type { Stream } from '../events/stream.js';
import type { ChainConditionResolved, MarketResolved, MarketUpserted } from '../events/types.js';
import { STREAMS } from '../read-models/registry.js';
import { type Observation, settlementOf } from './state-machine.js';

export interface ObservationSource {
  stream: Stream;
  /** The observation an event of the stream makes; null: nothing to observe. */
  observe(event: unknown): Observation | null;
}

const source = <E>(stream: Stream<E>, observe: (event: E) => Observation | null): ObservationSource => ({
  stream: stream as Stream,
  observe: (event) => observe(event as E),
});

const yesIndexOf = (outcomes: readonly string[]): number | null =>
  outcomes.length === 0
    ? null
    : Math.max(
        0,
        outcomes.findIndex((o) => o.toLowerCase() === 'yes'),
      );

/** Gamma's view of a market (fast path): its status, and its payouts once settled. */
function observeMarket(market: MarketUpserted): Observation {
  const settled = market.status === 'resolved' || market.status === 'voided';
  return {
    market_id: market.market_id,
    source: market.source,
    authority: 'gamma',
    state: market.status,
    payouts: settled ? market.outcome_prices : [],
    slug: market.slug,
    title: market.title,
    outcomes: market.outcomes,
    yes_index: market.yes_index,
    occurred_at_ms: settled ? (market.resolved_at_ms ?? market.closed_ms) : market.status === 'closed' ? market.closed_ms : null,
    observed_at_ms: market.ingested_at_ms,
  };
}

/** A resolution report (Gamma, or the CLOB's market_resolved / winner flags): a settlement. */
function observeResolution(resolution: MarketResolved): Observation {
  return {
    market_id: resolution.market_id,
    source: resolution.source,
    authority: resolution.origin,
    state: settlementOf(resolution.payouts),
    payouts: resolution.payouts,
    slug: resolution.slug,
    title: resolution.title,
    outcomes: resolution.outcomes,
    yes_index: yesIndexOf(resolution.outcomes),
    occurred_at_ms: resolution.resolved_at_ms,
    observed_at_ms: resolution.ingested_at_ms,
  };
}

/**
 * ConditionResolution on Polygon: the authority. Gamma's conditionId is the CTF condition id, so the
 * event's market_id is the lifecycle's market id. A retraction (the block was orphaned) reports
 * nothing: a settled market never goes back, and the resolution mined again in the new chain is a
 * `confirmed` step like the first.
 */
function observeChainResolution(resolution: ChainConditionResolved): Observation | null {
  if (resolution.retracted) return null;
  return {
    market_id: resolution.market_id,
    source: resolution.source,
    authority: 'chain',
    state: settlementOf(resolution.payouts),
    payouts: resolution.payouts,
    slug: '',
    title: '',
    outcomes: [],
    yes_index: null,
    occurred_at_ms: resolution.block_time_ms,
    observed_at_ms: resolution.ingested_at_ms,
  };
}

/** Every stream the lifecycle processor reads. */
export const OBSERVATION_SOURCES: readonly ObservationSource[] = [
  source(STREAMS.markets, observeMarket),
  source(STREAMS.marketResolutions, observeResolution),
  source(STREAMS.chainResolutions, observeChainResolution),
];
