/**
 * Each stream that reports on a market's lifecycle, turned into observations for the state machine.
 * A new authority (the chain's ConditionResolution stream) plugs in as one more entry here: its
 * topic, its decoder and a function from its event to an Observation with authority `chain`.
 */
import type { Stream } from '../events/stream.js';
import type { MarketResolved, MarketUpserted } from '../events/types.js';
import { STREAMS } from '../read-models/registry.js';
import { type Observation, settlementOf } from './state-machine.js';

export interface ObservationSource {
  topic: string;
  /** Decodes a log value of the topic into an observation (throws on an undecodable value). */
  decode(value: Buffer): Observation;
}

const source = <E>(stream: Stream<E>, observe: (event: E) => Observation): ObservationSource => ({
  topic: stream.topic,
  decode: (value) => observe(stream.codec.decode(value)),
});

const yesIndexOf = (outcomes: readonly string[]): number | null =>
  outcomes.length === 0
    ? null
    : Math.max(
        0,
        outcomes.findIndex((o) => o.toLowerCase() === 'yes'),
      );

/** Gamma's view of a market (fast path): its status, and its payouts once settled. */
export function observeMarket(market: MarketUpserted): Observation {
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
export function observeResolution(resolution: MarketResolved): Observation {
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

/** Every stream the lifecycle processor reads. */
export const OBSERVATION_SOURCES: readonly ObservationSource[] = [
  source(STREAMS.markets, observeMarket),
  source(STREAMS.marketResolutions, observeResolution),
];
