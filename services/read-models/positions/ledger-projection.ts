/** The ledger as the sink's projection: one PositionLedger per store, fed by the chain, trade and activity streams. */
import type { ChainConditionResolved, ChainLedgerEvent, TradeExecuted, WalletActivity } from '../../events/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { comparePositions, fromChain, fromDataApiActivity, fromDataApiTrade, type LedgerEvent } from './ledger-events.js';
import { trackLedgerFigures } from '../../processors/processor-metrics.js';
import { PositionLedger } from './ledger.js';

export class LedgerProjection {
  readonly ledger: PositionLedger;

  constructor(private readonly store: AnalyticsStore) {
    this.ledger = new PositionLedger(store);
  }

  applyChain(events: ChainLedgerEvent[], token?: string): Promise<number> {
    return this.ledger.apply(
      events.map(fromChain).filter((e): e is LedgerEvent => e !== null),
      token,
    );
  }

  /** A resolution's payout re-prices the redemptions applied before it was known; a retracted one is forgotten. */
  applyResolutions(events: ChainConditionResolved[], token?: string): Promise<number> {
    return this.ledger.applyResolutions(
      events.map((e) => {
        const num = e.payout_numerators.map((n) => BigInt(n));
        const den = num.reduce((a, b) => a + b, 0n);
        return { marketId: e.market_id, payout: e.retracted || den === 0n ? null : { num, den } };
      }),
      token,
    );
  }

  /** The Data API lists trades newest first: in time order, a batch of its history rewinds nothing within itself. */
  applyTrades(events: TradeExecuted[], token?: string): Promise<number> {
    return this.ledger.apply(events.map(fromDataApiTrade).sort(comparePositions), token);
  }

  async applyActivity(events: WalletActivity[], token?: string): Promise<number> {
    const relevant = events.filter((a) => ['SPLIT', 'MERGE', 'REDEEM'].includes(a.type.toUpperCase()));
    if (relevant.length === 0) return 0;
    const ids = [...new Set(relevant.map((a) => a.market_id))];
    const rows = await this.store.query<{ market_id: string; outcome_token_ids: string[] }>(
      'SELECT market_id, outcome_token_ids FROM markets FINAL WHERE market_id IN {ids:Array(String)}',
      { ids },
    );
    const tokens = new Map(rows.map((r) => [r.market_id, r.outcome_token_ids]));
    return this.ledger.apply(
      relevant
        .map((a) => fromDataApiActivity(a, (id) => tokens.get(id)))
        .filter((e): e is LedgerEvent => e !== null)
        .sort(comparePositions),
      token,
    );
  }
}

const ledgers = new WeakMap<AnalyticsStore, LedgerProjection>();

export function ledgerOf(store: AnalyticsStore): LedgerProjection {
  const known = ledgers.get(store);
  if (known) return known;
  const created = new LedgerProjection(store);
  trackLedgerFigures(created.ledger.stats);
  ledgers.set(store, created);
  return created;
}
