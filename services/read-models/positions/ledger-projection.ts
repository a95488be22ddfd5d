/** The ledger as the sink's projection: one PositionLedger per store, fed by the chain, resolution, trade and activity streams. */
import type {
  ChainConditionResolved,
  ChainLedgerEvent,
  MarketResolved,
  TradeExecuted,
  WalletActivity,
} from '../../events/types.generated.js';
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { comparePositions, fromChain, fromDataApiActivity, fromDataApiTrade, type LedgerEvent } from './ledger-events.js';
import { trackLedgerFigures } from '../../processors/processor-metrics.js';
import { PositionLedger } from './ledger.js';
import { payoutOfNumerators, payoutOfPrices } from './ledger-payouts.js';

export class LedgerProjection {
  readonly ledger: PositionLedger;

  constructor(private readonly store: AnalyticsStore) {
    this.ledger = new PositionLedger(store);
  }

  /** A batch of one partition: its changes, then its watermarks (how far the partition is applied). */
  async applyChain(events: ChainLedgerEvent[], token?: string, signal?: AbortSignal): Promise<number> {
    const applied = await this.ledger.apply(
      events.map(fromChain).filter((e): e is LedgerEvent => e !== null),
      token,
      signal,
    );
    await this.ledger.noteWatermarks(
      events.filter((e) => e.kind === 'watermark').map((e) => ({ group: e.ledger_group, block: e.block_number, timeMs: e.block_time_ms })),
    );
    return applied;
  }

  /** A resolution's payout re-prices the redemptions applied before it was known; a retracted one is forgotten. */
  applyResolutions(events: ChainConditionResolved[], token?: string, signal?: AbortSignal): Promise<number> {
    return this.ledger.applyResolutions(
      events.map((e) => ({
        marketId: e.market_id,
        payout: e.retracted ? null : payoutOfNumerators(e.payout_numerators.map((n) => BigInt(n))),
      })),
      token,
      signal,
    );
  }

  /**
   * The catalog's resolution of a market (Gamma's outcome prices, the CLOB's winner) re-prices its
   * redemptions as the chain's does; the chain's payout is preferred when both are known.
   */
  applyCatalogResolutions(events: MarketResolved[], token?: string, signal?: AbortSignal): Promise<number> {
    return this.ledger.applyCatalogResolutions(
      events.map((e) => ({ marketId: e.market_id, payout: payoutOfPrices(e.payouts), tokenIds: e.outcome_token_ids })),
      token,
      signal,
    );
  }

  /** The Data API lists trades newest first: in time order, a batch of its history rewinds nothing within itself. */
  applyTrades(events: TradeExecuted[], token?: string, signal?: AbortSignal): Promise<number> {
    return this.ledger.apply(events.map(fromDataApiTrade).sort(comparePositions), token, signal);
  }

  async applyActivity(events: WalletActivity[], token?: string, signal?: AbortSignal): Promise<number> {
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
      signal,
    );
  }
}

const ledgers = new WeakMap<AnalyticsStore, LedgerProjection>();

/** The store's ledger; `logger` (the consumer's) logs the failures it counts and goes on after. */
export function ledgerOf(store: AnalyticsStore, logger?: Logger): LedgerProjection {
  const known = ledgers.get(store);
  if (known) {
    if (logger) known.ledger.useLogger(logger);
    return known;
  }
  const created = new LedgerProjection(store);
  if (logger) created.ledger.useLogger(logger);
  trackLedgerFigures(created.ledger.stats);
  ledgers.set(store, created);
  return created;
}
