/**
 * Weighted-average-cost position accounting, as Polymarket's own PnL (see shared notes,
 * definitions.md):
 *   buy q at p:  avg = (avg*held + p*q) / (held + q); held += q
 *   sell q at p: q' = min(q, held) (shares that arrived outside our tracking earn no PnL);
 *                realized += q' * (p - avg); held -= q'
 *   split = buy both outcomes at 0.50; merge = sell both at 0.50; redemption = sell all at the payout.
 * Pure and deterministic: the API feeds it a wallet's fills in time order.
 */
export interface Fill {
  /** trade: a taker fill; split/merge/redeem: conversions from wallet activity (not volume). Default trade. */
  kind?: 'trade' | 'split' | 'merge' | 'redeem';
  market_id: string;
  asset_id: string;
  outcome: string;
  outcome_index: number;
  side: 'buy' | 'sell';
  size: number;
  price: number;
  ts_ms: number;
}

export interface Position {
  market_id: string;
  asset_id: string;
  outcome: string;
  outcome_index: number;
  held: number;
  avg_price: number;
  realized: number;
  bought_usdc: number;
  first_ms: number;
  last_ms: number;
}

export interface RealizedEvent {
  market_id: string;
  ts_ms: number;
  amount: number;
}

export class PositionBook {
  private readonly positions = new Map<string, Position>();
  readonly realizedEvents: RealizedEvent[] = [];

  apply(fill: Fill): void {
    const position = this.positions.get(fill.asset_id) ?? {
      market_id: fill.market_id,
      asset_id: fill.asset_id,
      outcome: fill.outcome,
      outcome_index: fill.outcome_index,
      held: 0,
      avg_price: 0,
      realized: 0,
      bought_usdc: 0,
      first_ms: fill.ts_ms,
      last_ms: fill.ts_ms,
    };
    if (fill.side === 'buy') {
      position.avg_price = (position.avg_price * position.held + fill.price * fill.size) / (position.held + fill.size);
      position.held += fill.size;
      if ((fill.kind ?? 'trade') === 'trade') position.bought_usdc += fill.price * fill.size;
    } else {
      const closed = Math.min(fill.size, position.held);
      const amount = closed * (fill.price - position.avg_price);
      position.realized += amount;
      position.held -= closed;
      // Float dust from repeated buys and sells would otherwise leave "open" positions of 1e-12 shares.
      if (position.held < 1e-9) position.held = 0;
      if (closed > 0) this.realizedEvents.push({ market_id: fill.market_id, ts_ms: fill.ts_ms, amount });
    }
    position.last_ms = fill.ts_ms;
    this.positions.set(fill.asset_id, position);
  }

  all(): Position[] {
    return [...this.positions.values()];
  }

  open(): Position[] {
    return this.all().filter((p) => p.held > 0);
  }

  realizedTotal(sinceMs = -Infinity): number {
    return this.realizedEvents.filter((e) => e.ts_ms >= sinceMs).reduce((sum, e) => sum + e.amount, 0);
  }
}
