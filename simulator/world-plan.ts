/**
 * How many events of each kind the world holds and when each one ends: recurring up/down windows,
 * neg-risk groups, games, and single-market events in a mix of long-dated, ending-soon, resolved and
 * awaiting-resolution lifecycles. The wording itself comes from drafts-*.ts.
 */

import type { Rng } from './prng.js';
import { DAY_MS, HISTORICAL_FROM_MS, HOUR_MS, MINUTE_MS, type EventDraft, type Lifecycle } from './drafts.js';
import { type SINGLE_CATEGORIES, singleEventDraft } from './drafts-singles.js';
import { NEG_RISK_THEME_COUNT, SERIES_SPECS, gameEventDraft, negRiskEventDraft, seriesEventDraft } from './drafts-grouped.js';

export interface PlanOptions {
  marketCount: number;
  nowMs: number;
  historicalMarkets?: number;
}

/** Share of historical markets that resolved 50-50, and that Gamma lists only as archived. */
const HISTORICAL_VOID_SHARE = 0.02;
const HISTORICAL_ARCHIVED_SHARE = 0.3;

const SINGLE_CATEGORY_WEIGHTS: Record<(typeof SINGLE_CATEGORIES)[number], number> = {
  Politics: 25,
  Crypto: 22,
  Economics: 14,
  Tech: 14,
  Culture: 12,
  Geopolitics: 13,
};

/** Decide how many events of each kind exist and when each ends, then word them. */
export function planEvents(rng: Rng, options: PlanOptions, originMs: number): EventDraft[] {
  const { marketCount, nowMs } = options;
  const drafts: EventDraft[] = [];
  let remaining = marketCount;

  // Recurring up/down series: a few past (resolved) windows, the current one and upcoming ones.
  const seriesBudget = marketCount >= 40 ? Math.min(24, Math.round(marketCount * 0.08)) : marketCount >= 10 ? 2 : 0;
  const seriesCounts = [Math.min(4, seriesBudget), Math.min(16, Math.max(0, seriesBudget - 4)), Math.max(0, seriesBudget - 20)];
  SERIES_SPECS.forEach((spec, specIndex) => {
    const count = seriesCounts[specIndex] ?? 0;
    const periodMs = spec.recurrence === 'daily' ? DAY_MS : HOUR_MS;
    const nextEnd = spec.recurrence === 'daily' ? nextDailyClose(nowMs) : Math.floor(nowMs / HOUR_MS) * HOUR_MS + HOUR_MS;
    const upcoming = spec.recurrence === 'daily' ? 1 : 2;
    for (let i = 0; i < count; i++) {
      drafts.push(seriesEventDraft(rng, spec, nextEnd + (upcoming - i) * periodMs, nowMs));
    }
    remaining -= count;
  });

  // Neg-risk events: groups of 3-9 Yes/No members.
  let negRiskBudget = marketCount >= 20 ? Math.round(marketCount * 0.18) : 0;
  let themeCursor = rng.int(0, NEG_RISK_THEME_COUNT - 1);
  while (negRiskBudget >= 2) {
    let members = Math.min(negRiskBudget, rng.int(3, 9));
    if (negRiskBudget - members === 1) members++;
    const lifecycle: Lifecycle = rng.chance(0.15) ? 'ending-soon' : 'long-dated';
    const draft = negRiskEventDraft(rng, themeCursor++, members, {
      ...lifecycleTimes(rng, lifecycle, nowMs, originMs, false),
      referenceMs: nowMs,
    });
    drafts.push(draft);
    negRiskBudget -= draft.members.length;
    remaining -= draft.members.length;
  }

  // Games: kick-offs from ~40 h ago to 2 days ahead; finished games are resolved (a few await resolution).
  const gameCount = Math.min(remaining, Math.round(marketCount * 0.2));
  for (let i = 0; i < gameCount; i++) {
    const gameStartMs = Math.round((nowMs + rng.float(-40, 48) * HOUR_MS) / (15 * MINUTE_MS)) * 15 * MINUTE_MS;
    const finished = gameStartMs + 3 * HOUR_MS <= nowMs;
    drafts.push(
      gameEventDraft(rng, {
        createdAtMs: gameStartMs - rng.float(1, 4) * DAY_MS,
        gameStartMs,
        referenceMs: nowMs,
        resolvesOnClose: !finished || rng.chance(0.92),
      }),
    );
  }
  remaining -= gameCount;

  // Single-market events fill the rest.
  const categoryTable = Object.entries(SINGLE_CATEGORY_WEIGHTS) as [(typeof SINGLE_CATEGORIES)[number], number][];
  let endingSoonCount = 0;
  for (let i = 0; i < remaining; i++) {
    const roll = rng.next();
    const lifecycle: Lifecycle =
      roll < 0.62 ? 'long-dated' : roll < 0.76 ? 'ending-soon' : roll < 0.95 ? 'resolved' : 'awaiting-resolution';
    // The first few ending-soon markets close within minutes, so a live demo sees resolutions early.
    const withinMinutes = lifecycle === 'ending-soon' && endingSoonCount++ < 3;
    drafts.push(
      singleEventDraft(rng, weightedCategory(rng, categoryTable), {
        ...lifecycleTimes(rng, lifecycle, nowMs, originMs, withinMinutes),
        referenceMs: nowMs,
      }),
    );
  }

  // The historical catalog: single-market events that ended between late 2020 and the start of the
  // generated history, closed then, mostly resolved (a few 50-50), the older ones archived.
  const historical = options.historicalMarkets ?? 0;
  const span = originMs - DAY_MS - HISTORICAL_FROM_MS;
  for (let i = 0; i < historical && span > 0; i++) {
    const endDateMs = Math.floor((HISTORICAL_FROM_MS + rng.next() * span) / HOUR_MS) * HOUR_MS;
    const draft = singleEventDraft(rng, weightedCategory(rng, categoryTable), {
      endDateMs,
      createdAtMs: endDateMs - rng.float(2, 90) * DAY_MS,
      resolvesOnClose: true,
      referenceMs: nowMs,
    });
    const member = draft.members[0];
    if (member && rng.chance(HISTORICAL_VOID_SHARE)) member.voided = true;
    draft.archived = (endDateMs - HISTORICAL_FROM_MS) / span < HISTORICAL_ARCHIVED_SHARE;
    drafts.push(draft);
  }
  return drafts;
}

/** End and creation times for a lifecycle. */
function lifecycleTimes(rng: Rng, lifecycle: Lifecycle, nowMs: number, originMs: number, withinMinutes: boolean) {
  switch (lifecycle) {
    case 'long-dated': {
      const endDateMs = Math.floor((nowMs + rng.float(3, 240) * DAY_MS) / HOUR_MS) * HOUR_MS;
      return { endDateMs, createdAtMs: nowMs - rng.float(2, 150) * DAY_MS, resolvesOnClose: true };
    }
    case 'ending-soon': {
      // Log-uniform delay: many close within the hour, some hours out.
      const latest = withinMinutes ? 15 * MINUTE_MS : 8 * HOUR_MS;
      const delayMs = Math.exp(rng.float(Math.log(2 * MINUTE_MS), Math.log(latest)));
      const endDateMs = Math.ceil((nowMs + delayMs) / MINUTE_MS) * MINUTE_MS;
      return { endDateMs, createdAtMs: endDateMs - rng.float(2, 30) * DAY_MS, resolvesOnClose: true };
    }
    case 'resolved':
    case 'awaiting-resolution': {
      const span = nowMs - MINUTE_MS - originMs;
      const endDateMs = Math.floor((originMs + rng.float(0.1, 1) * span) / MINUTE_MS) * MINUTE_MS;
      return { endDateMs, createdAtMs: endDateMs - rng.float(2, 45) * DAY_MS, resolvesOnClose: lifecycle === 'resolved' };
    }
  }
}

/** Daily windows close at 16:00 UTC (noon ET). */
function nextDailyClose(nowMs: number): number {
  const todayClose = Math.floor(nowMs / DAY_MS) * DAY_MS + 16 * HOUR_MS;
  return todayClose > nowMs ? todayClose : todayClose + DAY_MS;
}

function weightedCategory<T>(rng: Rng, table: [T, number][]): T {
  const total = table.reduce((sum, [, weight]) => sum + weight, 0);
  let target = rng.next() * total;
  for (const [value, weight] of table) {
    target -= weight;
    if (target < 0) return value;
  }
  return (table[table.length - 1] as [T, number])[0];
}
