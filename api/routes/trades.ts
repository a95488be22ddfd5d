/** Trade feed: newest first, keyset on (timestamp, trade_id) so a walk never repeats or skips a row. */
import { Router } from 'express';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { decodeCursor, encodeCursor, queryFingerprint } from '../cursor.js';
import { page } from '../envelope.js';

interface TradeRow {
  trade_id: string;
  market_id: string;
  market_title: string;
  wallet: string;
  side: 'buy' | 'sell';
  outcome: string;
  outcome_index: number;
  price: number;
  size: number;
  size_usdc: number;
  ts_ms: number;
  tx_hash: string;
  source: 'polymarket' | 'simulator';
}

export function tradeRoutes(store: AnalyticsStore): Router {
  const router = Router();

  router.get('/trades', async (request, response) => {
    const limit = Number(request.query.limit ?? 50);
    const wallet = request.query.wallet ? String(request.query.wallet).toLowerCase() : undefined;
    const market = request.query.market ? String(request.query.market).toLowerCase() : undefined;
    const fingerprint = queryFingerprint({ wallet, market });
    const after = request.query.cursor ? decodeCursor(String(request.query.cursor), fingerprint, ['number', 'string']) : null;
    const rows = await store.query<TradeRow>(
      `SELECT trade_id, market_id, market_title, wallet, side, outcome, outcome_index, price, size, size_usdc,
              toUnixTimestamp64Milli(ts) AS ts_ms, tx_hash, source
         FROM trades
        WHERE 1
          ${wallet ? 'AND wallet = {wallet:String}' : ''}
          ${market ? 'AND market_id = {market:String}' : ''}
          ${after ? 'AND (ts, trade_id) < (fromUnixTimestamp64Milli({after_ms:Int64}), {after_id:String})' : ''}
        ORDER BY ts DESC, trade_id DESC
        LIMIT {take:UInt32}`,
      { wallet, market, take: limit + 1, after_ms: after?.[0], after_id: after?.[1] },
    );
    const hasMore = rows.length > limit;
    const pageRows = rows.slice(0, limit);
    const last = pageRows[pageRows.length - 1];
    response.json(
      page(
        pageRows.map((t) => ({
          trade_id: t.trade_id,
          market_id: t.market_id,
          market_title: t.market_title,
          wallet: t.wallet,
          side: t.side,
          outcome: t.outcome,
          outcome_index: Number(t.outcome_index),
          price: t.price,
          size_shares: t.size,
          size_usdc: t.size_usdc,
          timestamp: new Date(Number(t.ts_ms)).toISOString(),
          tx_hash: t.tx_hash,
          source: t.source,
        })),
        { limit, has_more: hasMore, next_cursor: hasMore && last ? encodeCursor([Number(last.ts_ms), last.trade_id], fingerprint) : null },
      ),
    );
  });

  return router;
}
