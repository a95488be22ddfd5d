/**
 * Scenarios layered on a generated world, for the lifecycle and gap tests and the demo:
 * - late resolutions: markets whose end date is long past but which are still open (resolution waits
 *   on the oracle), and which close and resolve `lateResolutionAfterEndMs` after that end date;
 * - voids: markets that resolve 50-50 (both outcomes pay 0.5) when they close;
 * - bursts: many extra taker fills within a short span (more than one poll can page through).
 * Markets are picked deterministically from the seed among plain long-dated single-market events.
 */

import { DAY_MS, HOUR_MS } from './drafts.js';
import { createRng } from './prng.js';
import type { SimMarket, World } from './world-types.js';

export interface TradeBurst {
  /** Start of the burst (epoch ms, inside live time). */
  atMs: number;
  /** Extra taker fills spread evenly over the burst's seconds. */
  trades: number;
  durationMs: number;
}

export interface SimScenarios {
  /** How many markets are still open past their end date and resolve late. */
  lateResolutions?: number;
  /** How long after its end date a late market closes and resolves (default 30 days). */
  lateResolutionAfterEndMs?: number;
  /** How long after the world's start that happens (default 1 day). */
  lateResolutionInMs?: number;
  /** How many markets resolve 50-50. */
  voids?: number;
  /** How long after the world's start they close and resolve (default 1 hour). */
  voidInMs?: number;
  bursts?: TradeBurst[];
}

export interface ScenarioMarkets {
  lateResolution: number[];
  voided: number[];
}

/** Rewrites the picked markets' schedules in place; returns which markets play which part. */
export function applyScenarios(world: World, scenarios: SimScenarios, startMs: number): ScenarioMarkets {
  const rng = createRng(world.seed, 'scenarios');
  const candidates = world.markets.filter((market) => {
    const event = world.events[market.eventIndex];
    return (
      event !== undefined &&
      event.marketIndexes.length === 1 &&
      event.seriesIndex === null &&
      market.gameStartTimeMs === null &&
      !market.placeholder &&
      market.closesAtMs !== null &&
      market.closesAtMs > startMs + 3 * DAY_MS
    );
  });
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [candidates[i], candidates[j]] = [candidates[j] as SimMarket, candidates[i] as SimMarket];
  }
  const take = (count: number) => candidates.splice(0, Math.min(count, candidates.length));

  const afterEnd = scenarios.lateResolutionAfterEndMs ?? 30 * DAY_MS;
  const lateAt = Math.floor((startMs + (scenarios.lateResolutionInMs ?? DAY_MS)) / 1000) * 1000;
  const late = take(scenarios.lateResolutions ?? 0);
  for (const market of late) reschedule(world, market, lateAt - afterEnd, lateAt);

  const voidAt = Math.floor((startMs + (scenarios.voidInMs ?? HOUR_MS)) / 1000) * 1000;
  const voided = take(scenarios.voids ?? 0);
  for (const market of voided) {
    reschedule(world, market, voidAt, voidAt);
    market.voided = true;
  }
  return { lateResolution: late.map((m) => m.index), voided: voided.map((m) => m.index) };
}

/** A new end date and close; creation moves earlier when it would follow the end date. */
function reschedule(world: World, market: SimMarket, endDateMs: number, closesAtMs: number): void {
  market.endDateMs = endDateMs;
  market.closesAtMs = closesAtMs;
  market.resolvesOnClose = true;
  const latestCreation = (endDateMs - 20 * DAY_MS) * 1000;
  if (market.createdAtMicros > latestCreation) {
    const shift = market.createdAtMicros - latestCreation;
    market.createdAtMicros -= shift;
    market.startDateMicros -= shift;
    market.acceptingOrdersFromMs -= shift / 1000;
  }
  const event = world.events[market.eventIndex];
  if (event) {
    event.endDateMs = endDateMs;
    event.createdAtMicros = Math.min(event.createdAtMicros, market.createdAtMicros);
    event.startDateMicros = Math.min(event.startDateMicros, market.startDateMicros);
  }
}

/** Extra fills of the bursts in one second: the burst's trades spread evenly over its seconds. */
export function burstTradesInSecond(bursts: readonly TradeBurst[], second: number): Array<{ burst: number; count: number }> {
  const out: Array<{ burst: number; count: number }> = [];
  bursts.forEach((burst, index) => {
    const first = Math.floor(burst.atMs / 1000);
    const seconds = Math.max(1, Math.ceil(burst.durationMs / 1000));
    const k = second - first;
    if (k < 0 || k >= seconds) return;
    const count = Math.floor(((k + 1) * burst.trades) / seconds) - Math.floor((k * burst.trades) / seconds);
    if (count > 0) out.push({ burst: index, count });
  });
  return out;
}
