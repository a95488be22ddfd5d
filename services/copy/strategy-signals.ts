/**
 * Live evaluation of saved strategies: each enabled strategy keeps its own price windows
 * (services/signals/price-windows.ts, the market.price_signal detector at the strategy's threshold
 * and window) over the trades of its markets. A detected move is a strategy.signal on the YES
 * outcome: momentum buys an up move and sells a down move, reversion the opposite; entry_price is the
 * YES price of the trade that completed the move. A changed strategy starts with fresh windows.
 */
import type { TradeExecuted } from '../events/types.js';
import { microsOf } from '../shared/decimal.js';
import { PriceWindows } from '../signals/price-windows.js';
import type { StrategySignalFacts } from './payloads.js';
import type { Strategy } from './strategies.js';

export interface FiredSignal {
  accountId: string;
  facts: StrategySignalFacts;
}

export class StrategyEvaluator {
  private readonly windows = new Map<string, { version: number; windows: PriceWindows }>();

  /** Moves of the trades (in order) for every strategy watching their markets. */
  evaluate(trades: TradeExecuted[], strategies: Strategy[], nowMs: number): FiredSignal[] {
    const fired: FiredSignal[] = [];
    const live = new Set(strategies.map((s) => s.id));
    for (const id of this.windows.keys()) if (!live.has(id)) this.windows.delete(id);
    for (const strategy of strategies) {
      let entry = this.windows.get(strategy.id);
      if (!entry || entry.version !== strategy.updatedAtMs) {
        entry = {
          version: strategy.updatedAtMs,
          windows: new PriceWindows(strategy.config.window_minutes * 60_000, strategy.config.change_pct),
        };
        this.windows.set(strategy.id, entry);
      }
      const markets = new Set(strategy.config.market_ids);
      for (const trade of trades) {
        if (!markets.has(trade.market_id.toLowerCase())) continue;
        const move = entry.windows.observe(trade);
        if (!move) continue;
        const up = move.direction === 'up';
        const buy = strategy.config.mode === 'momentum' ? up : !up;
        fired.push({
          accountId: strategy.accountId,
          facts: {
            strategyId: strategy.id,
            strategyName: strategy.name,
            triggerId: trade.event_id,
            marketId: trade.market_id,
            marketTitle: trade.market_title,
            side: buy ? 'buy' : 'sell',
            entryPriceMicros: microsOf(trade.yes_price),
            confidence: strategy.confidence,
            edge: strategy.edge,
            emittedAtMs: nowMs,
            source: trade.source,
          },
        });
      }
    }
    return fired;
  }

  /** Saves the windows of these markets; the returned function puts them back (a failed batch is evaluated again). */
  checkpoint(marketIds: Iterable<string>): () => void {
    const ids = [...marketIds];
    const saved = [...this.windows.entries()].map(([id, entry]) => ({ id, entry, markets: entry.windows.snapshot(ids) }));
    return () => {
      for (const { id, entry, markets } of saved) {
        entry.windows.restore(markets);
        this.windows.set(id, entry);
      }
    };
  }
}
