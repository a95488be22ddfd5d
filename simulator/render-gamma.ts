/**
 * Gamma API shapes (gamma-api.polymarket.com), field for field as in the recorded samples:
 * JSON-arrays-in-strings for outcomes/outcomePrices/clobTokenIds/umaResolutionStatuses, `volume` and
 * `liquidity` as decimal strings next to numeric `volumeNum`/`liquidityNum`, digit-string ids, and the
 * same gaps upstream has (no `bestBid` once a market resolved "No", no `liquidity` after resolution,
 * no `outcomePrices` on neg-risk placeholders).
 */

import type { OrderBooks } from './books.js';
import { dateOnly, decimalString, isoMicros, isoSeconds, jsonArrayString, roundTo, spaceOffsetTime } from './formats.js';
import { marketFigures, priceFields, updatedAtMicros, type MarketFigures } from './market-figures.js';
import type { SimulatorState } from './state.js';
import type { SimEvent, SimMarket, SimSeries, SimTag } from './world-types.js';

type Json = Record<string, unknown>;

export function renderMarket(state: SimulatorState, books: OrderBooks, market: SimMarket, options: { withEvent: boolean }): Json {
  const event = state.world.events[market.eventIndex] as SimEvent;
  const status = state.status[market.index] ?? { closed: false, resolved: false, closedAtMs: null };
  const figures = marketFigures(state, books, market);
  const prices = priceFields(state, market);
  const volume = decimalString(figures.volumeNum, 6);
  const liquidity = figures.liquidityNum === null ? null : decimalString(figures.liquidityNum, 4);

  const json: Json = {
    id: market.id,
    question: market.question,
    conditionId: market.conditionId,
    slug: market.slug,
    resolutionSource: market.resolutionSource,
    endDate: isoSeconds(market.endDateMs),
    category: market.category,
    ...(liquidity === null ? {} : { liquidity }),
    startDate: isoMicros(market.startDateMicros),
    image: market.image,
    icon: market.image,
    description: market.description,
    outcomes: jsonArrayString(market.outcomes),
    ...(prices.outcomePrices ? { outcomePrices: jsonArrayString(prices.outcomePrices) } : {}),
    volume,
    active: !market.placeholder,
    closed: status.closed,
    // The legacy AMM's address on a pool's market (`ammMarkets`), as Gamma lists it; '' on order-book markets.
    marketMakerAddress: state.ammPool(market.index) ?? '',
    createdAt: isoMicros(market.createdAtMicros),
    updatedAt: isoMicros(updatedAtMicros(state, market)),
    ...(status.closedAtMs !== null ? { closedTime: spaceOffsetTime(status.closedAtMs) } : {}),
    new: false,
    featured: event.featured,
    submitted_by: market.submittedBy,
    archived: market.archived,
    resolvedBy: market.resolvedBy,
    restricted: true,
    ...(market.groupItemTitle !== null
      ? { groupItemTitle: market.groupItemTitle, groupItemThreshold: String(event.marketIndexes.indexOf(market.index)) }
      : { groupItemThreshold: '0' }),
    questionID: market.questionId,
    ...(status.resolved && status.closedAtMs !== null ? { umaEndDate: isoSeconds(status.closedAtMs) } : {}),
    enableOrderBook: true,
    orderPriceMinTickSize: market.tickSize,
    orderMinSize: market.orderMinSize,
    ...(status.closed ? { umaResolutionStatus: status.resolved ? 'resolved' : 'proposed' } : {}),
    volumeNum: figures.volumeNum,
    ...(figures.liquidityNum === null ? {} : { liquidityNum: figures.liquidityNum }),
    endDateIso: dateOnly(market.endDateMs),
    ...(market.placeholder ? {} : { startDateIso: dateOnly(market.startDateMicros / 1000) }),
    hasReviewedDates: true,
    volume24hr: figures.volume24hr,
    volume1wk: figures.volume1wk,
    volume1mo: figures.volume1mo,
    volume1yr: figures.volume1yr,
    clobTokenIds: jsonArrayString(market.tokenIds),
    umaBond: '500',
    umaReward: '5',
    volume24hrClob: figures.volume24hr,
    volume1wkClob: figures.volume1wk,
    volume1moClob: figures.volume1mo,
    volume1yrClob: figures.volume1yr,
    volumeClob: figures.volumeNum,
    ...(figures.liquidityNum === null ? {} : { liquidityClob: figures.liquidityNum }),
    customLiveness: 0,
    acceptingOrders: market.placeholder ? true : state.isAcceptingOrders(market.index),
    negRisk: event.negRisk,
    ...(event.negRiskMarketId ? { negRiskMarketID: event.negRiskMarketId, negRiskRequestID: market.negRiskRequestId ?? '' } : {}),
    ...(options.withEvent ? { events: [renderEvent(state, books, event, { withMarkets: false, withTags: false })] } : {}),
    ready: false,
    funded: false,
    acceptingOrdersTimestamp: isoSeconds(market.acceptingOrdersFromMs),
    cyom: false,
    competitive: figures.competitive,
    pagerDutyNotificationEnabled: false,
    approved: true,
    rewardsMinSize: market.placeholder ? 0 : 50,
    rewardsMaxSpread: market.placeholder ? 0 : 4.5,
    spread: prices.spread,
    oneDayPriceChange: prices.oneDayPriceChange,
    oneHourPriceChange: prices.oneHourPriceChange,
    lastTradePrice: prices.lastTradePrice,
    ...(prices.bestBid === null ? {} : { bestBid: prices.bestBid }),
    bestAsk: prices.bestAsk,
    automaticallyActive: true,
    ...(status.resolved ? { automaticallyResolved: true } : {}),
    clearBookOnStart: true,
    showGmpSeries: false,
    showGmpOutcome: false,
    manualActivation: market.placeholder,
    negRiskOther: false,
    umaResolutionStatuses:
      status.resolved && !market.umaHistoryLagging ? '["proposed", "resolved"]' : status.closed ? '["proposed"]' : '[]',
    pendingDeployment: false,
    deploying: false,
    rfqEnabled: false,
    holdingRewardsEnabled: false,
    ...feeFields(market, event),
    requiresTranslation: false,
    ...(market.sportsMarketType ? { sportsMarketType: market.sportsMarketType } : {}),
    ...(market.gameStartTimeMs !== null ? { gameStartTime: spaceOffsetTime(market.gameStartTimeMs) } : {}),
  };
  return json;
}

/**
 * Fee fields as Gamma serves them: `feeSchedule` is the effective taker schedule (values from the
 * recorded samples per fee type); makerBaseFee/takerBaseFee are the legacy 1000 shown whenever fees
 * are on. Recurring crypto windows, sports and politics charge fees; other categories do not.
 */
function feeFields(market: SimMarket, event: SimEvent): Json {
  const schedule =
    market.category === 'Crypto' && event.seriesIndex !== null
      ? { feeType: 'crypto_fees_v2', rate: 0.07, rebateRate: 0.2 }
      : market.category === 'Sports'
        ? { feeType: 'sports_fees_v2', rate: 0.03, rebateRate: 0.25 }
        : market.category === 'Politics'
          ? { feeType: 'politics_fees', rate: 0.04, rebateRate: 0.25 }
          : null;
  if (!schedule) return { feesEnabled: false, feeType: null };
  return {
    feesEnabled: true,
    feeType: schedule.feeType,
    feeSchedule: { exponent: 1, rate: schedule.rate, takerOnly: true, rebateRate: schedule.rebateRate },
    makerBaseFee: 1000,
    takerBaseFee: 1000,
  };
}

export function renderEvent(
  state: SimulatorState,
  books: OrderBooks,
  event: SimEvent,
  options: { withMarkets: boolean; withTags: boolean },
): Json {
  const markets = event.marketIndexes.map((index) => state.world.markets[index] as SimMarket);
  const figures = markets.map((market) => marketFigures(state, books, market));
  const sum = (pick: (f: MarketFigures) => number) => figures.reduce((total, f) => total + pick(f), 0);
  const tradable = markets.filter((market) => !market.placeholder);
  const closed = tradable.length > 0 && tradable.every((market) => state.status[market.index]?.closed);
  const closedAt = closed ? Math.max(...tradable.map((market) => state.status[market.index]?.closedAtMs ?? 0)) : null;
  const series = event.seriesIndex === null ? null : state.world.series[event.seriesIndex];
  const liquidity = sum((f) => f.liquidityNum ?? 0);
  return {
    id: event.id,
    ticker: event.slug,
    slug: event.slug,
    title: event.title,
    description: event.description,
    resolutionSource: event.resolutionSource,
    startDate: isoMicros(event.startDateMicros),
    creationDate: isoMicros(event.startDateMicros - 6),
    endDate: isoSeconds(event.endDateMs),
    image: event.image,
    icon: event.image,
    active: true,
    closed,
    archived: event.archived,
    new: false,
    featured: event.featured,
    restricted: true,
    liquidity,
    volume: sum((f) => f.volumeNum),
    openInterest: roundTo(
      sum((f) => f.openInterest),
      6,
    ),
    category: event.category,
    createdAt: isoMicros(event.createdAtMicros),
    updatedAt: isoMicros(Math.max(Math.floor(event.createdAtMicros / 1000), ...figures.map((f) => f.lastActivityMs)) * 1000 + 17),
    ...(closedAt !== null ? { closedTime: isoSeconds(closedAt) } : {}),
    competitive: figures.length ? sum((f) => f.competitive) / figures.length : 0,
    volume24hr: sum((f) => f.volume24hr),
    volume1wk: sum((f) => f.volume1wk),
    volume1mo: sum((f) => f.volume1mo),
    volume1yr: sum((f) => f.volume1yr),
    enableOrderBook: true,
    liquidityClob: liquidity,
    negRisk: event.negRisk,
    ...(event.negRiskMarketId ? { negRiskMarketID: event.negRiskMarketId } : {}),
    commentCount: event.commentCount,
    ...(options.withMarkets ? { markets: markets.map((market) => renderMarket(state, books, market, { withEvent: false })) } : {}),
    ...(series ? { series: [renderSeries(state, books, series, { withEvents: false })] } : {}),
    ...(options.withTags
      ? {
          tags: event.tagIds
            .map((id) => state.world.tags.find((tag) => tag.id === id))
            .filter((tag): tag is SimTag => !!tag)
            .map(renderTag),
        }
      : {}),
    cyom: false,
    showAllOutcomes: true,
    showMarketImages: !event.negRisk,
    enableNegRisk: event.negRisk,
    automaticallyActive: true,
    ...(event.startTimeMs !== null ? { startTime: isoSeconds(event.startTimeMs) } : {}),
    ...(series ? { seriesSlug: series.slug } : {}),
    negRiskAugmented: event.negRisk && markets.some((market) => market.placeholder),
    pendingDeployment: false,
    deploying: false,
    requiresTranslation: false,
  };
}

export function renderSeries(state: SimulatorState, books: OrderBooks, series: SimSeries, options: { withEvents: boolean }): Json {
  const events = series.eventIndexes.map((index) => state.world.events[index] as SimEvent);
  const markets = events.flatMap((event) => event.marketIndexes.map((index) => state.world.markets[index] as SimMarket));
  const allClosed = markets.every((market) => state.status[market.index]?.closed);
  return {
    id: series.id,
    ticker: series.ticker,
    slug: series.slug,
    title: series.title,
    seriesType: 'single',
    recurrence: series.recurrence,
    image: series.image,
    icon: series.image,
    active: true,
    closed: allClosed,
    archived: false,
    featured: false,
    restricted: true,
    createdAt: isoMicros(series.createdAtMicros),
    updatedAt: isoMicros(state.nowMs() * 1000 - 1_234_567),
    volume24hr: markets.reduce((sum, market) => sum + state.volume24hr(market.index), 0),
    volume: markets.reduce((sum, market) => sum + state.totalVolume(market.index), 0),
    liquidity: markets.reduce((sum, market) => sum + books.liquidity(market), 0),
    commentCount: series.commentCount,
    requiresTranslation: false,
    ...(options.withEvents
      ? { events: events.map((event) => renderEvent(state, books, event, { withMarkets: false, withTags: false })) }
      : {}),
  };
}

export function renderTag(tag: SimTag): Json {
  return {
    id: tag.id,
    label: tag.label,
    slug: tag.slug,
    ...(tag.forceShow !== undefined ? { forceShow: tag.forceShow } : {}),
    createdAt: isoMicros(tag.createdAtMicros),
    updatedAt: isoMicros(tag.updatedAtMicros),
    requiresTranslation: false,
  };
}
