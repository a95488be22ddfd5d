/**
 * Builds the static world: tags, series, events, markets and wallets, all from the seed and the clock
 * reading at start. world-plan.ts decides what exists and when it ends; this file turns those drafts
 * into markets with ids (growing with creation time, as Gamma's do), token ids and condition ids.
 */

import { createRng, type Rng } from './prng.js';
import { slugify } from './formats.js';
import { CATEGORY_TAGS, SUB_TAGS } from './vocabulary.js';
import { DAY_MS, HOUR_MS, type EventDraft } from './drafts.js';
import { SERIES_SPECS, seriesTitle } from './drafts-grouped.js';
import { planEvents } from './world-plan.js';
import { generateWallets } from './wallets.js';
import type { Category, SimEvent, SimMarket, SimSeries, SimTag, World } from './world-types.js';

export interface WorldOptions {
  seed: number;
  marketCount: number;
  walletCount: number;
  historyHours: number;
  nowMs: number;
  /** Old, long-closed single-market events added to the catalog (default none). */
  historicalMarkets?: number;
}

const IMAGE_BASE = 'https://polymarket-upload.s3.us-east-2.amazonaws.com/sim';

export function buildWorld(options: WorldOptions): World {
  const { seed, nowMs } = options;
  const originMs = Math.floor(nowMs / 1000) * 1000 - options.historyHours * HOUR_MS;
  const rng = createRng(seed, 'world');
  const drafts = planEvents(rng, options, originMs);

  const tags = buildTags(rng, originMs);
  const tagIdByLabel = new Map(tags.map((tag) => [tag.label, tag.id]));
  const { events, markets, seriesKeys } = materialise(rng, drafts, tagIdByLabel, originMs);
  const series = buildSeries(rng, seriesKeys, events, originMs);
  const wallets = generateWallets(seed, options.walletCount, markets, nowMs);

  return { seed, originMs, generatedAtMs: nowMs, tags, series, events, markets, wallets };
}

function buildTags(rng: Rng, originMs: number): SimTag[] {
  const tags: SimTag[] = [];
  const createdAt = (daysBack: number) => (originMs - daysBack * DAY_MS) * 1000 + rng.int(0, 999_999);
  for (const category of Object.keys(CATEGORY_TAGS) as Category[]) {
    const tag = CATEGORY_TAGS[category];
    tags.push({ ...tag, forceShow: false, createdAtMicros: createdAt(900), updatedAtMicros: createdAt(3) });
  }
  let nextId = 100100;
  const seen = new Set<string>();
  for (const labels of Object.values(SUB_TAGS)) {
    for (const label of labels) {
      if (seen.has(label)) continue;
      seen.add(label);
      nextId += rng.int(1, 90);
      const tag: SimTag = {
        id: String(nextId),
        label,
        slug: slugify(label),
        createdAtMicros: createdAt(rng.int(30, 600)),
        updatedAtMicros: createdAt(3),
      };
      if (rng.chance(0.5)) tag.forceShow = rng.chance(0.2);
      tags.push(tag);
    }
  }
  return tags;
}

/** Turn drafts into events and markets with ids, token ids and condition ids, ordered by creation. */
function materialise(
  rng: Rng,
  drafts: EventDraft[],
  tagIdByLabel: Map<string, string>,
  originMs: number,
): { events: SimEvent[]; markets: SimMarket[]; seriesKeys: (string | null)[] } {
  const eventOrder = drafts
    .map((draft, draftIndex) => ({ draft, draftIndex, createdAtMicros: Math.floor(draft.createdAtMs) * 1000 + rng.int(0, 999) }))
    .sort((a, b) => a.createdAtMicros - b.createdAtMicros || a.draftIndex - b.draftIndex);

  const usedEventSlugs = slugRegistry();
  const usedMarketSlugs = slugRegistry();
  const usedTokens = new Set<string>();
  const oracleAddresses = [
    '0x91430CaD2d3975766499717fA0D66A78D814E5c5',
    '0x2F5e3684cb1F318ec51b00Edba38d79Ac2c0aA9d',
    '0x65070BE91477460D8A7AeEb94ef92fe056C2f2A7',
  ];
  let nextEventId = 20000;

  const events: SimEvent[] = [];
  const seriesKeys: (string | null)[] = [];
  const marketEntries: { market: Omit<SimMarket, 'index' | 'id'>; eventIndex: number }[] = [];
  for (const { draft, createdAtMicros } of eventOrder) {
    nextEventId += rng.int(1, 60);
    const eventIndex = events.length;
    const slug = uniqueSlug(draft.seriesKey || draft.gameStartTimeMs !== null ? draft.slugBase : slugify(draft.slugBase), usedEventSlugs);
    const negRiskMarketId = draft.negRisk ? `0x${rng.hex(62)}00` : null;
    const categoryTag = CATEGORY_TAGS[draft.category];
    seriesKeys.push(draft.seriesKey);
    events.push({
      index: eventIndex,
      id: String(nextEventId),
      slug,
      title: draft.title,
      description: draft.description,
      category: draft.category,
      resolutionSource: draft.resolutionSource,
      image: `${IMAGE_BASE}/${slug}.png`,
      tagIds: [categoryTag.id, ...draft.subTags.map((label) => tagIdByLabel.get(label)).filter((id): id is string => !!id)],
      seriesIndex: null,
      negRisk: draft.negRisk,
      negRiskMarketId,
      marketIndexes: [],
      createdAtMicros,
      startDateMicros: createdAtMicros + rng.int(5, 90) * 1_000_000 + rng.int(0, 999_999),
      endDateMs: draft.endDateMs,
      startTimeMs: draft.startTimeMs,
      featured: rng.chance(0.08),
      commentCount: Math.floor(rng.logNormal(20, 1.5)),
      archived: draft.archived === true,
    });

    draft.members.forEach((member, memberIndex) => {
      const marketCreated = createdAtMicros + memberIndex * rng.int(1, 20) * 1_000_000 + rng.int(0, 999_999);
      const startDateMicros = marketCreated + rng.int(10, 90) * 1_000_000 + rng.int(0, 999_999);
      const marketSlug = draft.members.length === 1 ? slug : uniqueSlug(slugify(member.question), usedMarketSlugs);
      usedMarketSlugs.used.add(marketSlug);
      const extreme = Math.min(member.initialYesPrice, 1 - member.initialYesPrice) < 0.1;
      const tickSize = rng.chance(extreme ? 0.6 : 0.12) ? 0.001 : 0.01;
      marketEntries.push({
        eventIndex,
        market: {
          eventIndex,
          question: member.question,
          slug: marketSlug,
          description: member.description,
          category: draft.category,
          conditionId: `0x${rng.hex(64)}`,
          questionId: negRiskMarketId ? `${negRiskMarketId.slice(0, 64)}${memberIndex.toString(16).padStart(2, '0')}` : `0x${rng.hex(64)}`,
          negRiskRequestId: negRiskMarketId ? `0x${rng.hex(64)}` : null,
          outcomes: member.outcomes,
          tokenIds: [uniqueToken(rng, usedTokens), uniqueToken(rng, usedTokens)],
          groupItemTitle: member.groupItemTitle,
          sportsMarketType: member.sportsMarketType,
          gameStartTimeMs: draft.gameStartTimeMs,
          placeholder: member.placeholder,
          tickSize,
          orderMinSize: 5,
          spreadTicks: tickSize === 0.01 ? rng.int(1, 3) : rng.int(2, 12),
          depthShares: rng.logNormal(400, 0.9),
          popularity: 0,
          createdAtMicros: marketCreated,
          startDateMicros,
          acceptingOrdersFromMs: Math.ceil(startDateMicros / 1_000_000) * 1000 + rng.int(2, 60) * 1000,
          endDateMs: draft.endDateMs,
          closesAtMs: member.placeholder ? null : draft.endDateMs,
          resolvesOnClose: draft.resolvesOnClose,
          winningOutcome: member.winningOutcome,
          voided: member.voided === true,
          archived: draft.archived === true,
          initialYesPrice: member.initialYesPrice,
          volatilityPerMinute: draft.seriesKey ? rng.float(0.004, 0.01) : rng.float(0.001, 0.005),
          image: `${IMAGE_BASE}/${slug}.png`,
          resolutionSource: draft.resolutionSource,
          umaHistoryLagging: rng.chance(0.25),
          submittedBy: rng.pick(oracleAddresses),
          resolvedBy: rng.pick(oracleAddresses),
        },
      });
    });
  }

  // Gamma market ids grow with creation time; neg-risk members share their event's creation instant.
  const sortedEntries = marketEntries
    .map((entry, order) => ({ ...entry, order }))
    .sort((a, b) => a.market.createdAtMicros - b.market.createdAtMicros || a.order - b.order);
  let nextMarketId = 500000;
  const markets: SimMarket[] = sortedEntries.map(({ market }, index) => {
    nextMarketId += rng.int(1, 40);
    return { ...market, index, id: String(nextMarketId) };
  });
  for (const market of markets) (events[market.eventIndex] as SimEvent).marketIndexes.push(market.index);
  assignPopularity(rng, markets, originMs);
  return { events, markets, seriesKeys };
}

/** Power law over a random ranking, so a handful of markets carry most of the volume. */
function assignPopularity(rng: Rng, markets: SimMarket[], originMs: number): void {
  const ranks = markets.map((_, i) => i);
  for (let i = ranks.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [ranks[i], ranks[j]] = [ranks[j] as number, ranks[i] as number];
  }
  markets.forEach((market, i) => {
    // Placeholders and markets closed before the generated history never trade.
    const neverTrades = market.placeholder || (market.closesAtMs !== null && market.closesAtMs <= originMs);
    market.popularity = neverTrades ? 0 : 1 / ((ranks[i] as number) + 1) ** 1.1;
  });
}

function buildSeries(rng: Rng, seriesKeys: (string | null)[], events: SimEvent[], originMs: number): SimSeries[] {
  const series: SimSeries[] = [];
  let nextSeriesId = 10680;
  for (const spec of SERIES_SPECS) {
    const members = events.filter((event) => seriesKeys[event.index] === spec.key);
    if (members.length === 0) continue;
    nextSeriesId += rng.int(1, 30);
    const seriesIndex = series.length;
    for (const event of members) event.seriesIndex = seriesIndex;
    series.push({
      index: seriesIndex,
      id: String(nextSeriesId),
      ticker: spec.key,
      slug: spec.key,
      title: seriesTitle(spec),
      recurrence: spec.recurrence,
      image: `${IMAGE_BASE}/${spec.coinTicker}-series.png`,
      createdAtMicros: (originMs - 120 * DAY_MS) * 1000 + rng.int(0, 999_999),
      commentCount: rng.int(100, 30000),
      eventIndexes: members.map((event) => event.index),
    });
  }
  return series;
}

/** Slugs taken so far, and per base the next suffix to try (a large catalog repeats bases often). */
interface SlugRegistry {
  used: Set<string>;
  nextSuffix: Map<string, number>;
}

const slugRegistry = (): SlugRegistry => ({ used: new Set(), nextSuffix: new Map() });

function uniqueSlug(base: string, registry: SlugRegistry): string {
  let slug = base || 'market';
  let suffix = registry.nextSuffix.get(base) ?? 2;
  while (registry.used.has(slug)) slug = `${base}-${suffix++}`;
  registry.nextSuffix.set(base, suffix);
  registry.used.add(slug);
  return slug;
}

/** Token ids are uint256 values printed in decimal: up to 78 digits, so never parse them as numbers. */
function uniqueToken(rng: Rng, used: Set<string>): string {
  for (;;) {
    const length = rng.pick([76, 77, 77, 78]);
    // A 78-digit value must stay below 2^256 (~1.158e77): start those with "10", as real ones often do.
    const token = length === 78 ? `10${rng.digits(76)}` : rng.digits(length);
    if (!used.has(token)) {
      used.add(token);
      return token;
    }
  }
}
