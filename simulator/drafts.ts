/**
 * Drafts: events and markets described in words and times, before ids, token ids and ordering are
 * assigned by world.ts. Keeping the wording apart from the bookkeeping keeps both short.
 */

import type { Category } from './world-types.js';
import type { Rng } from './prng.js';
import { MONTHS } from './vocabulary.js';

export interface MarketDraft {
  question: string;
  outcomes: [string, string];
  description: string;
  groupItemTitle: string | null;
  placeholder: boolean;
  sportsMarketType: 'moneyline' | null;
  initialYesPrice: number;
  winningOutcome: 0 | 1;
  /** Resolves 50-50 (a void: both outcomes pay 0.5) instead of to winningOutcome. */
  voided?: boolean;
}

/** How an event's markets end relative to the world's clock at generation time. */
export type Lifecycle = 'long-dated' | 'ending-soon' | 'resolved' | 'awaiting-resolution';

/** Old catalog entries (ended before the generated history): closed long ago, most resolved. */
export const HISTORICAL_FROM_MS = Date.UTC(2020, 9, 1);

export interface EventDraft {
  category: Category;
  title: string;
  slugBase: string;
  description: string;
  resolutionSource: string;
  subTags: string[];
  seriesKey: string | null;
  negRisk: boolean;
  createdAtMs: number;
  endDateMs: number;
  startTimeMs: number | null;
  gameStartTimeMs: number | null;
  resolvesOnClose: boolean;
  /** Listed by Gamma only when asked for archived markets. */
  archived?: boolean;
  members: MarketDraft[];
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** "March 31" (the year is added when it differs from the reference year). */
export function dateLabel(ms: number, referenceMs: number): string {
  const date = new Date(ms);
  const label = `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}`;
  return date.getUTCFullYear() === new Date(referenceMs).getUTCFullYear() ? label : `${label}, ${date.getUTCFullYear()}`;
}

/** "January" (the year is added when it differs from the reference year). */
export function monthName(ms: number, referenceMs: number): string {
  const date = new Date(ms);
  const month = MONTHS[date.getUTCMonth()] ?? '';
  return date.getUTCFullYear() === new Date(referenceMs).getUTCFullYear() ? month : `${month} ${date.getUTCFullYear()}`;
}

/** Binary market priced near p, winner drawn with probability p so prices are calibrated on average. */
export function yesNoMarket(rng: Rng, question: string, description: string, price?: number): MarketDraft {
  const yesPrice = price ?? clampPrice(rng.chance(0.3) ? rng.float(0.02, 0.2) : rng.float(0.08, 0.92));
  return {
    question,
    outcomes: ['Yes', 'No'],
    description,
    groupItemTitle: null,
    placeholder: false,
    sportsMarketType: null,
    initialYesPrice: yesPrice,
    winningOutcome: rng.chance(yesPrice) ? 0 : 1,
  };
}

export function clampPrice(price: number): number {
  return Math.min(0.97, Math.max(0.03, price));
}

export function standardDescription(question: string, deadline: string, source: string): string {
  return (
    `This market asks: ${question}\n\n` +
    `It will resolve to "Yes" if the event in the title happens ${deadline}. Otherwise, it will resolve to "No".\n\n` +
    `The primary resolution source for this market will be ${source}, however a consensus of credible reporting may also be used.`
  );
}
