/** Trades: every taker fill once (one row per upstream match), as a feed and per-market tape. */
import { defineStream } from '../../events/stream.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { rebuildTradeViewsOf } from '../candles/rebuild.js';
import { tradeRow, unseenTrades } from './rows.js';
import { tradeRoutes } from './routes.js';

export const trades = defineStream({
  name: 'trades',
  topic: 'tapeline.trades.v1',
  partitions: 8,
  schema: 'trade.executed.v1',
  key: (trade) => trade.market_id,
  time: (trade) => trade.timestamp_ms,
});

export const tradesReadModel = defineReadModel({
  name: 'trades',
  streams: { trades },
  projections: [
    project(trades, {
      table: 'trades',
      row: tradeRow,
      unseen: unseenTrades,
      afterInsert: (store, _events, replayed) => rebuildTradeViewsOf(store, replayed),
    }),
  ],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => tradeRoutes(store),
});
