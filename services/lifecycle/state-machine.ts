/**
 * The market lifecycle as a state machine: active -> closed -> resolved | voided.
 *
 * Inputs are observations from authorities of two ranks: the fast path (Gamma's market, the CLOB's
 * resolution messages: rank 1) and the chain (ConditionResolution on Polygon: rank 2, the authority).
 * Rules, per market:
 * - the first observation lists the market in the state it reports (`listed`);
 * - active <-> closed follow Gamma (`closed`, `reopened`);
 * - the first report of a settlement moves it to resolved (a single outcome pays 1) or voided (a
 *   split payout such as 50-50) from any unsettled state, whoever reports it first;
 * - once settled, a report with the same payouts from a higher authority is a `confirmed` step;
 *   different payouts from an equal or higher authority are a `corrected` step (a new resolution
 *   number); anything else (lower authority, or an unsettled state after settlement) changes nothing.
 * - subscribers are told (`notify`) about every settlement the service watched happen: the market
 *   was known unsettled before, or it settled after the lifecycle began watching (`epochMs`). A
 *   market first seen long settled (catalog history) is recorded without a notification.
 */
import type { MarketLifecycleTransition } from '../events/types.js';

type LifecycleState = MarketLifecycleTransition['to_state'];
type Authority = MarketLifecycleTransition['authority'];

const AUTHORITY_RANK: Record<Authority, number> = { gamma: 1, 'clob-ws': 1, 'clob-rest': 1, chain: 2 };

/** resolved_outcome of a void. */
const VOID_OUTCOME = '50-50';

/** What the processor keeps per market between observations. */
export interface MarketLifecycle {
  market_id: string;
  source: MarketLifecycleTransition['source'];
  state: LifecycleState;
  revision: number;
  authority: Authority;
  resolution_number: number;
  payouts: number[];
  resolved_outcome: string | null;
  winning_outcome_index: number;
  slug: string;
  title: string;
  outcomes: string[];
  yes_index: number;
}

/** One report about a market, from any stream. */
export interface Observation {
  market_id: string;
  source: MarketLifecycleTransition['source'];
  authority: Authority;
  /** The state reported; for a resolution report, resolved or voided. */
  state: LifecycleState;
  /** Payouts per outcome when the report settles the market. */
  payouts: number[];
  /** Market metadata when the report carries it (resolution messages often do not: empty). */
  slug: string;
  title: string;
  outcomes: string[];
  yes_index: number | null;
  /** Upstream time of the change, when known. */
  occurred_at_ms: number | null;
  observed_at_ms: number;
}

export interface Step {
  next: MarketLifecycle;
  transitions: MarketLifecycleTransition[];
}

const settled = (state: LifecycleState) => state === 'resolved' || state === 'voided';

/** resolved when one outcome pays 1, voided otherwise (a split payout). */
export function settlementOf(payouts: readonly number[]): 'resolved' | 'voided' {
  return payouts.filter((p) => p === 1).length === 1 ? 'resolved' : 'voided';
}

function samePayouts(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, i) => Math.abs(value - (b[i] as number)) < 1e-9);
}

/** Applies one observation; returns the new state and the transitions it caused (zero or one). */
export function step(current: MarketLifecycle | null, observation: Observation, epochMs: number): Step {
  const withMetadata = (base: MarketLifecycle): MarketLifecycle => ({
    ...base,
    source: observation.source,
    slug: observation.slug || base.slug,
    title: observation.title || base.title,
    outcomes: observation.outcomes.length > 0 ? observation.outcomes : base.outcomes,
    yes_index: observation.yes_index ?? base.yes_index,
  });

  if (current === null) {
    const blank: MarketLifecycle = {
      market_id: observation.market_id,
      source: observation.source,
      state: observation.state,
      revision: 0,
      authority: observation.authority,
      resolution_number: 0,
      payouts: [],
      resolved_outcome: null,
      winning_outcome_index: -1,
      slug: '',
      title: '',
      outcomes: [],
      yes_index: 0,
    };
    const next = settle(withMetadata(blank), observation, 1);
    // Catalog history is recorded quietly; a settlement after we began watching is news even unseen before.
    const notify = settled(next.state) && observation.occurred_at_ms !== null && observation.occurred_at_ms >= epochMs;
    return transition(
      next,
      null,
      settled(next.state) ? (next.state === 'resolved' ? 'resolved' : 'voided') : 'listed',
      observation,
      notify,
      true,
    );
  }

  const base = withMetadata(current);
  if (!settled(current.state)) {
    if (settled(observation.state)) {
      const next = settle(base, observation, 1);
      return transition(next, current.state, next.state === 'resolved' ? 'resolved' : 'voided', observation, true);
    }
    if (observation.state === current.state) return { next: base, transitions: [] };
    const next = { ...base, state: observation.state, authority: observation.authority };
    return transition(next, current.state, observation.state === 'closed' ? 'closed' : 'reopened', observation, false);
  }

  // Settled: only an equal or higher authority with a settlement report can move it.
  if (!settled(observation.state)) return { next: base, transitions: [] };
  const rank = AUTHORITY_RANK[observation.authority];
  const currentRank = AUTHORITY_RANK[current.authority];
  if (samePayouts(observation.payouts, current.payouts)) {
    if (rank <= currentRank) return { next: base, transitions: [] };
    return transition({ ...base, authority: observation.authority }, current.state, 'confirmed', observation, false);
  }
  if (rank < currentRank) return { next: base, transitions: [] };
  const next = settle(base, observation, current.resolution_number + 1);
  return transition(next, current.state, 'corrected', observation, true);
}

function settle(base: MarketLifecycle, observation: Observation, resolutionNumber: number): MarketLifecycle {
  if (!settled(observation.state)) return { ...base, state: observation.state, authority: observation.authority };
  const payouts = [...observation.payouts];
  const state = payouts.length > 0 ? settlementOf(payouts) : observation.state;
  const winner = state === 'resolved' ? payouts.indexOf(1) : -1;
  return {
    ...base,
    state,
    authority: observation.authority,
    resolution_number: resolutionNumber,
    payouts,
    winning_outcome_index: winner,
    resolved_outcome: state === 'voided' ? VOID_OUTCOME : (base.outcomes[winner] ?? null),
  };
}

function transition(
  next: MarketLifecycle,
  from: LifecycleState | null,
  kind: MarketLifecycleTransition['kind'],
  observation: Observation,
  notify: boolean,
  first = false,
): Step {
  const revision = first ? 1 : next.revision + 1;
  const state = { ...next, revision };
  const isSettled = settled(state.state);
  const yes = isSettled ? (state.payouts[state.yes_index] ?? null) : null;
  const no = isSettled && state.payouts.length === 2 ? (state.payouts[1 - state.yes_index] ?? null) : null;
  return {
    next: state,
    transitions: [
      {
        event_id: `${state.market_id}:${revision}`,
        source: state.source,
        market_id: state.market_id,
        revision,
        kind,
        from_state: from,
        to_state: state.state,
        authority: state.authority,
        slug: state.slug,
        title: state.title,
        outcomes: state.outcomes,
        yes_index: state.yes_index,
        resolution_number: state.resolution_number,
        resolved_outcome: isSettled ? state.resolved_outcome : null,
        winning_outcome_index: isSettled ? state.winning_outcome_index : -1,
        payouts: isSettled ? state.payouts : [],
        final_yes_price: yes,
        final_no_price: no,
        occurred_at_ms: observation.occurred_at_ms,
        observed_at_ms: observation.observed_at_ms,
        notify,
      },
    ],
  };
}
