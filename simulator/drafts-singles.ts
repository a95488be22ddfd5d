/** One-market events ("Will X happen by <date>?") across the non-sports categories. */

import type { Rng } from './prng.js';
import type { Category } from './world-types.js';
import { dateLabel, monthName, standardDescription, yesNoMarket, type EventDraft } from './drafts.js';
import { ARTISTS, COINS, COMPANIES, CONFLICT_PAIRS, COUNTRIES, MOVIES, PEOPLE, PRODUCTS, US_STATES } from './vocabulary.js';

interface SingleQuestion {
  question: string;
  subTags: string[];
  source: string;
}

type QuestionMaker = (rng: Rng, by: string, month: string, year: number) => SingleQuestion;

const QUESTION_MAKERS: Record<Exclude<Category, 'Sports'>, QuestionMaker[]> = {
  Politics: [
    (rng, _by, _m, year) => ({
      question: `Will ${rng.pick(PEOPLE)} win the ${year} ${rng.pick(US_STATES)} governor race?`,
      subTags: ['Elections', 'Governors'],
      source: 'official state election results',
    }),
    (rng, by) => ({
      question: `Will the Senate confirm ${rng.pick(PEOPLE)} by ${by}?`,
      subTags: ['US Senate', 'Congress'],
      source: 'the U.S. Senate',
    }),
    (rng, by) => ({
      question: `Will ${rng.pick(COUNTRIES)} hold a snap election by ${by}?`,
      subTags: ['World Elections'],
      source: 'official government announcements',
    }),
    (rng, by) => ({
      question: `Will ${rng.pick(PEOPLE)} announce a presidential run by ${by}?`,
      subTags: ['Elections', 'Primaries'],
      source: 'official campaign statements',
    }),
  ],
  Crypto: [
    (rng, by) => {
      const coin = rng.pick(COINS);
      const target = roundNice(coin.base * rng.float(0.7, 1.5));
      return {
        question: `Will ${coin.name} reach $${formatUsd(target)} by ${by}?`,
        subTags: ['Crypto Prices', coin.name === 'Bitcoin' ? 'Bitcoin' : 'Ethereum'],
        source: 'Binance spot prices',
      };
    },
    (rng, by) => ({
      question: `Will a ${rng.pick(COINS.slice(2)).name} ETF be approved by ${by}?`,
      subTags: ['ETFs'],
      source: 'the U.S. SEC',
    }),
    (rng, _by, month) => ({
      question: `Will ${rng.pick(COINS).name} hit a new all-time high in ${month}?`,
      subTags: ['Crypto Prices'],
      source: 'CoinGecko',
    }),
  ],
  Economics: [
    (_rng, _by, month) => ({ question: `Will the Fed cut rates in ${month}?`, subTags: ['Fed Rates'], source: 'the Federal Reserve' }),
    (rng, _by, month) => ({
      question: `Will US CPI inflation be above ${rng.pick(['2.5', '2.8', '3.0', '3.2'])}% in ${month}?`,
      subTags: ['Inflation'],
      source: 'the U.S. Bureau of Labor Statistics',
    }),
    (rng, _by, _m, year) => ({
      question: `Will US GDP growth exceed ${rng.pick(['1.5', '2.0', '2.5', '3.0'])}% in Q${rng.int(1, 4)} ${year}?`,
      subTags: ['GDP'],
      source: 'the U.S. Bureau of Economic Analysis',
    }),
    (_rng, _by, _m, year) => ({ question: `US recession in ${year}?`, subTags: ['Recession'], source: 'the NBER' }),
  ],
  Tech: [
    (rng, by) => ({
      question: `Will ${rng.pick(COMPANIES)} release ${rng.pick(PRODUCTS)} by ${by}?`,
      subTags: ['Big Tech'],
      source: 'official company announcements',
    }),
    (rng, by) => ({
      question: `Will ${rng.pick(COMPANIES)} be the largest company in the world on ${by}?`,
      subTags: ['Big Tech'],
      source: 'companiesmarketcap.com',
    }),
    (rng, by) => ({ question: `Will OpenAI release GPT-${rng.int(6, 7)} by ${by}?`, subTags: ['AI', 'OpenAI'], source: 'OpenAI' }),
  ],
  Culture: [
    (rng) => ({
      question: `Will "${rng.pick(MOVIES)}" gross over $${rng.pick([50, 80, 100, 150])}M on its opening weekend?`,
      subTags: ['Movies', 'Box Office'],
      source: 'Box Office Mojo',
    }),
    (rng, by) => ({
      question: `Will ${rng.pick(ARTISTS)} release a new album by ${by}?`,
      subTags: ['Music'],
      source: 'official artist announcements',
    }),
    (rng) => ({
      question: `Will "${rng.pick(MOVIES)}" win Best Picture?`,
      subTags: ['Awards', 'Movies'],
      source: 'the Academy of Motion Picture Arts and Sciences',
    }),
  ],
  Geopolitics: [
    (rng, by) => {
      const [a, b] = rng.pick(CONFLICT_PAIRS);
      return {
        question: `${a} x ${b} ceasefire by ${by}?`,
        subTags: ['Ceasefire', 'Diplomacy'],
        source: 'official statements from both governments',
      };
    },
    (rng, by) => ({
      question: `Will ${rng.pick(PEOPLE)} meet ${rng.pick(PEOPLE)} by ${by}?`,
      subTags: ['Diplomacy'],
      source: 'official readouts',
    }),
    (rng, by) => ({
      question: `Will the US announce new tariffs on ${rng.pick(COUNTRIES)} by ${by}?`,
      subTags: ['Trade War'],
      source: 'the White House',
    }),
  ],
};

export const SINGLE_CATEGORIES = Object.keys(QUESTION_MAKERS) as Exclude<Category, 'Sports'>[];

export function singleEventDraft(
  rng: Rng,
  category: Exclude<Category, 'Sports'>,
  times: { createdAtMs: number; endDateMs: number; referenceMs: number; resolvesOnClose: boolean },
): EventDraft {
  const by = dateLabel(times.endDateMs, times.referenceMs);
  const { question, subTags, source } = rng.pick(QUESTION_MAKERS[category])(
    rng,
    by,
    // "January", or "January 2027" outside the reference year: two events a year apart never share a title.
    monthName(times.endDateMs, times.referenceMs),
    new Date(times.endDateMs).getUTCFullYear(),
  );
  const description = standardDescription(question, `by ${by}, 11:59 PM ET`, source);
  return {
    category,
    title: question,
    slugBase: question,
    description,
    resolutionSource: '',
    subTags,
    seriesKey: null,
    negRisk: false,
    createdAtMs: times.createdAtMs,
    endDateMs: times.endDateMs,
    startTimeMs: null,
    gameStartTimeMs: null,
    resolvesOnClose: times.resolvesOnClose,
    members: [yesNoMarket(rng, question, description)],
  };
}

function roundNice(value: number): number {
  const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(value)) - 1);
  return Math.max(magnitude, Math.round(value / magnitude) * magnitude);
}

function formatUsd(value: number): string {
  // Thousands separators by hand: toLocaleString depends on the ICU build.
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
