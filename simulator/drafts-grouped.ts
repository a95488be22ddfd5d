/**
 * Multi-market and scheduled events: neg-risk "who will win" events, sports games with team-name
 * outcomes, and the recurring crypto up/down series.
 */

import type { Rng } from './prng.js';
import { COMPANIES, LEAGUES, MONTHS, MOVIES, PEOPLE } from './vocabulary.js';
import { DAY_MS, HOUR_MS, clampPrice, dateLabel, monthName, standardDescription, type EventDraft, type MarketDraft } from './drafts.js';
import type { Category } from './world-types.js';

interface NegRiskTheme {
  category: Category;
  title: (year: number, month: string) => string;
  candidates: () => string[];
  question: (candidate: string, year: number, month: string) => string;
  subTags: string[];
  source: string;
}

const NEG_RISK_THEMES: NegRiskTheme[] = [
  {
    category: 'Politics',
    title: (year) => `${year + 2} Democratic presidential nominee`,
    candidates: () => PEOPLE.slice(0, 9),
    question: (who, year) => `Will ${who} win the ${year + 2} Democratic presidential nomination?`,
    subTags: ['Elections', 'Primaries'],
    source: 'the Democratic National Convention',
  },
  {
    category: 'Politics',
    title: (year) => `${year + 2} Republican presidential nominee`,
    candidates: () => PEOPLE.slice(9),
    question: (who, year) => `Will ${who} win the ${year + 2} Republican presidential nomination?`,
    subTags: ['Elections', 'Primaries'],
    source: 'the Republican National Convention',
  },
  {
    category: 'Economics',
    title: (_year, month) => `Fed decision in ${month}?`,
    candidates: () => ['No change', '25 bps decrease', '50+ bps decrease', '25+ bps increase'],
    question: (what, _year, month) => `Fed ${what === 'No change' ? 'makes no change to rates' : what} after the ${month} meeting?`,
    subTags: ['Fed Rates'],
    source: 'the Federal Reserve',
  },
  {
    category: 'Tech',
    title: (year) => `Largest company end of ${year}?`,
    candidates: () => COMPANIES.slice(0, 7),
    question: (company, year) => `Will ${company} be the largest company in the world by market cap on December 31, ${year}?`,
    subTags: ['Big Tech'],
    source: 'companiesmarketcap.com',
  },
  {
    category: 'Culture',
    title: (year) => `Best Picture Winner ${year + 1}`,
    candidates: () => MOVIES.slice(),
    question: (movie, year) => `Will "${movie}" win Best Picture at the ${year + 1} Oscars?`,
    subTags: ['Awards', 'Movies'],
    source: 'the Academy of Motion Picture Arts and Sciences',
  },
  ...LEAGUES.filter((league) => league.key !== 'atp').map<NegRiskTheme>((league) => ({
    category: 'Sports',
    title: (year) => `${league.name} Champion ${year}`,
    candidates: () => league.teams.slice(),
    question: (team, year) => `Will the ${team} win the ${year} ${league.name} championship?`,
    subTags: [league.name === 'Premier League' ? 'EPL' : league.name],
    source: `official ${league.name} results`,
  })),
];

export const NEG_RISK_THEME_COUNT = NEG_RISK_THEMES.length;

/** A neg-risk event: up to memberCount Yes/No members, exactly one of which resolves Yes. */
export function negRiskEventDraft(
  rng: Rng,
  themeIndex: number,
  memberCount: number,
  times: { createdAtMs: number; endDateMs: number; referenceMs: number; resolvesOnClose: boolean },
): EventDraft {
  const theme = NEG_RISK_THEMES[themeIndex % NEG_RISK_THEMES.length] as NegRiskTheme;
  const year = new Date(times.endDateMs).getUTCFullYear();
  const month = monthName(times.endDateMs, times.referenceMs);
  const title = theme.title(year, month);
  const description = standardDescription(title, `by ${dateLabel(times.endDateMs, times.referenceMs)}`, theme.source);

  // Placeholders ("Other", unnamed slots) exist on real neg-risk events with no prices at all.
  const placeholderCount = memberCount >= 4 && rng.chance(0.5) ? 1 : 0;
  // Themes with few candidates (a Fed decision has four outcomes) yield smaller events.
  const names = shuffled(rng, theme.candidates()).slice(0, memberCount - placeholderCount);

  // Favourite-heavy prices that roughly sum to one, as neg-risk books do.
  const weights = names.map(() => rng.next() ** 2.2 + 0.01);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const winnerSlot = pickWeighted(rng, weights);
  const members: MarketDraft[] = names.map((name, slot) => ({
    question: theme.question(name, year, month),
    outcomes: ['Yes', 'No'],
    description,
    groupItemTitle: name,
    placeholder: false,
    sportsMarketType: null,
    initialYesPrice: clampPrice((weights[slot] ?? 0) / total),
    winningOutcome: slot === winnerSlot ? 0 : 1,
  }));
  for (let i = 0; i < placeholderCount; i++) {
    const label = `Person ${String.fromCharCode(80 + i)}`;
    members.push({
      question: theme.question(label, year, month),
      outcomes: ['Yes', 'No'],
      description,
      groupItemTitle: label,
      placeholder: true,
      sportsMarketType: null,
      initialYesPrice: 0.5,
      winningOutcome: 1,
    });
  }
  return {
    category: theme.category,
    title,
    slugBase: title,
    description,
    resolutionSource: '',
    subTags: theme.subTags,
    seriesKey: null,
    negRisk: true,
    createdAtMs: times.createdAtMs,
    endDateMs: times.endDateMs,
    startTimeMs: null,
    gameStartTimeMs: null,
    resolvesOnClose: times.resolvesOnClose,
    members,
  };
}

/** A game: one moneyline market whose outcomes are the two team (or player) names. */
export function gameEventDraft(
  rng: Rng,
  times: { createdAtMs: number; gameStartMs: number; referenceMs: number; resolvesOnClose: boolean },
): EventDraft {
  const league = rng.pick(LEAGUES);
  const home = rng.int(0, league.teams.length - 1);
  let away = rng.int(0, league.teams.length - 2);
  if (away >= home) away++;
  const teamA = league.teams[home] ?? 'Home';
  const teamB = league.teams[away] ?? 'Away';
  const day = new Date(times.gameStartMs).toISOString().slice(0, 10);
  const title = `${teamA} vs. ${teamB}`;
  const endDateMs = times.gameStartMs + 3 * HOUR_MS;
  const description =
    `This market refers to the ${league.name} game between ${teamA} and ${teamB}, scheduled for ${dateLabel(times.gameStartMs, times.referenceMs)}.\n\n` +
    `This market will resolve to "${teamA}" if ${teamA} win the game. This market will resolve to "${teamB}" if ${teamB} win the game.\n\n` +
    `If the game is canceled or postponed beyond 7 days, this market will resolve 50-50.`;
  const favourite = clampPrice(rng.float(0.25, 0.78));
  return {
    category: 'Sports',
    title,
    slugBase: `${league.key}-${league.abbreviations[home]}-${league.abbreviations[away]}-${day}`,
    description,
    resolutionSource: `https://www.${league.key}.com`,
    subTags: [league.key === 'epl' ? 'EPL' : league.key === 'atp' ? 'Tennis' : league.name, 'Games'],
    seriesKey: null,
    negRisk: false,
    createdAtMs: times.createdAtMs,
    endDateMs,
    startTimeMs: times.gameStartMs,
    gameStartTimeMs: times.gameStartMs,
    resolvesOnClose: times.resolvesOnClose,
    members: [
      {
        question: title,
        outcomes: [teamA, teamB],
        description,
        groupItemTitle: null,
        placeholder: false,
        sportsMarketType: 'moneyline',
        initialYesPrice: favourite,
        winningOutcome: rng.chance(favourite) ? 0 : 1,
      },
    ],
  };
}

export interface SeriesSpec {
  key: string;
  coin: string;
  coinTicker: string;
  recurrence: 'daily' | 'hourly';
}

export const SERIES_SPECS: SeriesSpec[] = [
  { key: 'btc-up-or-down-daily', coin: 'Bitcoin', coinTicker: 'btc', recurrence: 'daily' },
  { key: 'eth-up-or-down-hourly', coin: 'Ethereum', coinTicker: 'eth', recurrence: 'hourly' },
  { key: 'sol-up-or-down-daily', coin: 'Solana', coinTicker: 'sol', recurrence: 'daily' },
];

/** One window of a recurring up/down series; the window is [endDate - period, endDate). */
export function seriesEventDraft(rng: Rng, spec: SeriesSpec, endDateMs: number, referenceMs: number): EventDraft {
  const periodMs = spec.recurrence === 'daily' ? DAY_MS : HOUR_MS;
  const startMs = endDateMs - periodMs;
  const hourLabel = `${String(new Date(startMs).getUTCHours()).padStart(2, '0')}:00 UTC`;
  const title =
    spec.recurrence === 'daily'
      ? `${spec.coin} Up or Down on ${dateLabel(endDateMs, referenceMs)}?`
      : `${spec.coin} Up or Down - ${dateLabel(startMs, referenceMs)}, ${hourLabel}`;
  const description =
    `This market will resolve to "Up" if the ${spec.coin} price at the end of the window specified in the title is greater than or equal to the price at the beginning of that window. Otherwise, it will resolve to "Down".\n` +
    `The resolution source for this market is Binance, specifically the ${spec.coinTicker.toUpperCase()}/USDT 1 minute candles.`;
  const slugBase =
    spec.recurrence === 'daily'
      ? `${spec.coin.toLowerCase()}-up-or-down-on-${slugDate(endDateMs)}`
      : `${spec.coinTicker}-updown-1h-${Math.floor(startMs / 1000)}`;
  const opening = clampPrice(0.5 + rng.float(-0.04, 0.04));
  return {
    category: 'Crypto',
    title,
    slugBase,
    description,
    resolutionSource: `https://www.binance.com/en/trade/${spec.coinTicker.toUpperCase()}_USDT`,
    subTags: ['Up or Down', spec.coin === 'Bitcoin' ? 'Bitcoin' : spec.coin === 'Ethereum' ? 'Ethereum' : 'Solana'],
    seriesKey: spec.key,
    negRisk: false,
    // Recurring windows are listed a while before they open, so part of their trading precedes the window.
    createdAtMs: startMs - (spec.recurrence === 'daily' ? DAY_MS : 12 * HOUR_MS),
    endDateMs,
    startTimeMs: startMs,
    gameStartTimeMs: null,
    resolvesOnClose: true,
    members: [
      {
        question: title,
        outcomes: ['Up', 'Down'],
        description,
        groupItemTitle: null,
        placeholder: false,
        sportsMarketType: null,
        initialYesPrice: opening,
        winningOutcome: rng.chance(0.5) ? 0 : 1,
      },
    ],
  };
}

export function seriesTitle(spec: SeriesSpec): string {
  return `${spec.coinTicker.toUpperCase()} Up or Down ${spec.recurrence === 'daily' ? 'Daily' : 'Hourly'}`;
}

function slugDate(ms: number): string {
  const date = new Date(ms);
  return `${(MONTHS[date.getUTCMonth()] ?? '').toLowerCase()}-${date.getUTCDate()}`;
}

function shuffled<T>(rng: Rng, items: T[]): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

function pickWeighted(rng: Rng, weights: readonly number[]): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let target = rng.next() * total;
  for (let i = 0; i < weights.length; i++) {
    target -= weights[i] ?? 0;
    if (target < 0) return i;
  }
  return weights.length - 1;
}
