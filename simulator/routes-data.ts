/**
 * Data API: /trades, /holders, /oi, /positions, /activity, /value. Responses are bare JSON arrays.
 * Limits follow the documented maxima and are enforced (400), including offset <= 10,000 on /trades,
 * which is why a full backfill cannot page through a large market by offset alone.
 */

import { Router } from 'express';
import { maybeMalformTrade } from './faults.js';
import { fromMicro } from './fill-amounts.js';
import { roundTo } from './formats.js';
import {
  HttpError,
  boolParam,
  conditionIdsParam,
  enumParam,
  floatParam,
  intParam,
  listParam,
  optionalIntParam,
  stringParam,
  walletParam,
  type Query,
} from './http-params.js';
import { positionRows, renderHolders, renderLedgerActivity, renderTrade, renderTradeActivity } from './render-data.js';
import type { SimulatorState } from './state.js';
import type { SimTrade } from './trades.js';
import type { SimMarket, SimWallet } from './world-types.js';

const MAX_OFFSET = 10_000;
const ACTIVITY_TYPES = ['TRADE', 'SPLIT', 'MERGE', 'REDEEM', 'REWARD', 'CONVERSION', 'MAKER_REBATE', 'TAKER_REBATE'] as const;
const POSITION_SORTS = ['CURRENT', 'INITIAL', 'TOKENS', 'CASHPNL', 'PERCENTPNL', 'TITLE', 'RESOLVING', 'PRICE', 'AVGPRICE'] as const;

export function dataRouter(state: SimulatorState, options: { malformedTradeRate: number }): Router {
  const router = Router();

  const requireWallet = (query: Query): SimWallet | null => {
    const address = walletParam(query, 'user');
    if (address === undefined) throw new HttpError(400, 'user is required');
    return state.walletByAddress.get(address) ?? null;
  };

  /** Market indexes selected by `market` (condition ids) or `eventId`, or null for "all". */
  const marketScope = (query: Query): Set<number> | null => {
    const conditionIds = conditionIdsParam(query, 'market');
    const eventIds = listParam(query, 'eventId', { commaSeparated: true });
    if (conditionIds.length && eventIds.length) throw new HttpError(400, 'market and eventId are mutually exclusive');
    if (conditionIds.length) {
      return new Set(conditionIds.map((id) => state.marketByConditionId.get(id)?.index).filter((i): i is number => i !== undefined));
    }
    if (eventIds.length) {
      return new Set(eventIds.flatMap((id) => state.eventById.get(id)?.marketIndexes ?? []));
    }
    return null;
  };

  router.get('/trades', (req, res) => {
    const query = req.query as Query;
    const limit = intParam(query, 'limit', { defaultValue: 100, min: 0, max: 10_000, aboveMax: 'reject' });
    const offset = intParam(query, 'offset', { defaultValue: 0, min: 0, max: MAX_OFFSET, aboveMax: 'reject' });
    const takerOnly = boolParam(query, 'takerOnly') ?? true;
    const scope = marketScope(query);
    const user = walletParam(query, 'user');
    const side = enumParam(query, 'side', ['BUY', 'SELL'] as const);
    const filterType = enumParam(query, 'filterType', ['CASH', 'TOKENS'] as const);
    const filterAmount = floatParam(query, 'filterAmount');
    if ((filterType === undefined) !== (filterAmount === undefined)) throw new HttpError(400, 'filterType and filterAmount go together');
    const userIndex = user === undefined ? undefined : (state.walletByAddress.get(user)?.index ?? -1);

    const matches = (trade: SimTrade, walletIndex: number, rowSide: string) =>
      (userIndex === undefined || walletIndex === userIndex) &&
      (side === undefined || rowSide === side) &&
      (filterAmount === undefined || (filterType === 'CASH' ? trade.size * trade.price : trade.size) >= filterAmount);

    // Newest first; within a second, later-generated first; a maker row follows its taker row.
    const rows: Record<string, unknown>[] = [];
    let skipped = 0;
    const indexes = scope === null ? null : mergedNewestFirst(state, scope);
    const total = indexes ? indexes.length : state.trades.length;
    for (let k = 0; k < total && rows.length < limit; k++) {
      const trade = indexes ? (state.trades[indexes[k] as number] as SimTrade) : (state.trades[state.trades.length - 1 - k] as SimTrade);
      const candidates: ['taker' | 'maker', number, string][] = [['taker', trade.walletIndex, trade.side]];
      if (!takerOnly && trade.makerWalletIndex >= 0)
        candidates.push(['maker', trade.makerWalletIndex, trade.side === 'BUY' ? 'SELL' : 'BUY']);
      for (const [role, walletIndex, rowSide] of candidates) {
        if (!matches(trade, walletIndex, rowSide) || rows.length >= limit) continue;
        if (skipped < offset) {
          skipped++;
          continue;
        }
        rows.push(maybeMalformTrade(state.seed, options.malformedTradeRate, renderTrade(state, trade, role)));
      }
    }
    res.json(rows);
  });

  router.get('/holders', (req, res) => {
    const query = req.query as Query;
    const conditionIds = conditionIdsParam(query, 'market');
    if (conditionIds.length === 0) throw new HttpError(400, 'market is required');
    const limit = intParam(query, 'limit', { defaultValue: 20, min: 0, max: 20, aboveMax: 'clamp' });
    const minBalance = floatParam(query, 'minBalance') ?? 1;
    const markets = conditionIds.map((id) => state.marketByConditionId.get(id)).filter((m): m is SimMarket => !!m);
    res.json(markets.flatMap((market) => renderHolders(state, market, limit, minBalance)));
  });

  router.get('/oi', (req, res) => {
    const conditionIds = conditionIdsParam(req.query as Query, 'market');
    const markets = conditionIds.length
      ? conditionIds.map((id) => state.marketByConditionId.get(id)).filter((m): m is SimMarket => !!m)
      : state.world.markets.filter((market) => !market.placeholder);
    res.json(markets.map((market) => ({ market: market.conditionId, value: roundTo(state.openInterest(market.index), 6) })));
  });

  router.get('/value', (req, res) => {
    const query = req.query as Query;
    const wallet = requireWallet(query);
    const value = wallet ? positionRows(state, wallet).reduce((sum, row) => sum + Number(row.json.currentValue), 0) : 0;
    res.json([{ user: walletParam(query, 'user'), value: roundTo(value, 6) }]);
  });

  router.get('/positions', (req, res) => {
    const query = req.query as Query;
    const wallet = requireWallet(query);
    const scope = marketScope(query);
    const sizeThreshold = floatParam(query, 'sizeThreshold') ?? 1;
    const redeemable = boolParam(query, 'redeemable');
    const mergeable = boolParam(query, 'mergeable');
    const limit = intParam(query, 'limit', { defaultValue: 100, min: 0, max: 500, aboveMax: 'reject' });
    const offset = intParam(query, 'offset', { defaultValue: 0, min: 0, max: MAX_OFFSET, aboveMax: 'reject' });
    const sortBy = enumParam(query, 'sortBy', POSITION_SORTS) ?? 'TOKENS';
    const descending = (enumParam(query, 'sortDirection', ['ASC', 'DESC'] as const) ?? 'DESC') === 'DESC';
    const title = stringParam(query, 'title')?.toLowerCase();
    if (!wallet) {
      res.json([]);
      return;
    }
    const sortValue = (json: Record<string, unknown>): number | string => {
      switch (sortBy) {
        case 'CURRENT':
          return Number(json.currentValue);
        case 'INITIAL':
          return Number(json.initialValue);
        case 'CASHPNL':
          return Number(json.cashPnl);
        case 'PERCENTPNL':
          return Number(json.percentPnl);
        case 'TITLE':
          return String(json.title);
        case 'RESOLVING':
          return String(json.endDate);
        case 'PRICE':
          return Number(json.curPrice);
        case 'AVGPRICE':
          return Number(json.avgPrice);
        default:
          return Number(json.size);
      }
    };
    const rows = positionRows(state, wallet)
      .filter(
        (row) =>
          fromMicro(row.holding.shares) >= sizeThreshold &&
          (scope === null || scope.has(row.marketIndex)) &&
          (redeemable === undefined || row.json.redeemable === redeemable) &&
          (mergeable === undefined || row.json.mergeable === mergeable) &&
          (title === undefined || String(row.json.title).toLowerCase().includes(title)),
      )
      .map((row) => row.json)
      .sort((a, b) => {
        const va = sortValue(a);
        const vb = sortValue(b);
        const order = typeof va === 'number' && typeof vb === 'number' ? va - vb : String(va).localeCompare(String(vb));
        return (descending ? -order : order) || String(a.asset).localeCompare(String(b.asset));
      });
    res.json(rows.slice(offset, offset + limit));
  });

  router.get('/activity', (req, res) => {
    const query = req.query as Query;
    const wallet = requireWallet(query);
    const scope = marketScope(query);
    const limit = intParam(query, 'limit', { defaultValue: 100, min: 0, max: 500, aboveMax: 'reject' });
    const offset = intParam(query, 'offset', { defaultValue: 0, min: 0, max: MAX_OFFSET, aboveMax: 'reject' });
    const types = listParam(query, 'type', { commaSeparated: true }).map((type) => {
      const known = ACTIVITY_TYPES.find((t) => t === type.toUpperCase());
      if (!known) throw new HttpError(400, `type must be among ${ACTIVITY_TYPES.join(', ')}`);
      return known;
    });
    const start = optionalIntParam(query, 'start');
    const end = optionalIntParam(query, 'end');
    const sortBy = enumParam(query, 'sortBy', ['TIMESTAMP', 'TOKENS', 'CASH'] as const) ?? 'TIMESTAMP';
    const descending = (enumParam(query, 'sortDirection', ['ASC', 'DESC'] as const) ?? 'DESC') === 'DESC';
    const side = enumParam(query, 'side', ['BUY', 'SELL'] as const);
    if (!wallet) {
      res.json([]);
      return;
    }

    // Order key: timestamp, then position on the tape (a ledger row sits between the trades around it).
    type Row = { json: Record<string, unknown>; timestamp: number; tape: number; size: number; cash: number };
    const rows: Row[] = [];
    for (const index of tradeIndexesOfWallet(state, wallet.index)) {
      const trade = state.trades[index] as SimTrade;
      rows.push({
        json: renderTradeActivity(state, trade),
        timestamp: trade.timestamp,
        tape: trade.sequence * 2 + 1,
        size: trade.size,
        cash: trade.size * trade.price,
      });
    }
    for (const entry of state.ledger.activityOf(wallet.index)) {
      rows.push({
        json: renderLedgerActivity(state, entry),
        timestamp: entry.timestamp,
        tape: entry.tradesBefore * 2 + entry.sequence / 1e9,
        size: fromMicro(entry.shares),
        cash: fromMicro(entry.usdc),
      });
    }
    const selected = rows.filter(
      (row) =>
        (types.length === 0 || types.includes(row.json.type as (typeof ACTIVITY_TYPES)[number])) &&
        (scope === null || scope.has((state.marketByConditionId.get(String(row.json.conditionId)) as SimMarket).index)) &&
        (start === undefined || row.timestamp >= start) &&
        (end === undefined || row.timestamp <= end) &&
        (side === undefined || row.json.side === side),
    );
    const primary = (row: Row) => (sortBy === 'TOKENS' ? row.size : sortBy === 'CASH' ? row.cash : row.timestamp);
    selected.sort((a, b) => {
      const order = primary(a) - primary(b) || a.timestamp - b.timestamp || a.tape - b.tape;
      return descending ? -order : order;
    });
    res.json(selected.slice(offset, offset + limit).map((row) => row.json));
  });

  return router;
}

/** Trade indexes of the given markets, newest first (merging per-market lists, each oldest first). */
function mergedNewestFirst(state: SimulatorState, scope: Set<number>): number[] {
  const merged: number[] = [];
  for (const marketIndex of scope) for (const index of state.tradesOfMarket(marketIndex)) merged.push(index);
  // Trade indexes are tape positions, so sorting them descending is newest first.
  return merged.sort((a, b) => b - a);
}

function tradeIndexesOfWallet(state: SimulatorState, walletIndex: number): number[] {
  const indexes: number[] = [];
  state.trades.forEach((trade, index) => {
    if (trade.walletIndex === walletIndex) indexes.push(index);
  });
  return indexes;
}
