/**
 * Token id and condition id -> market, from the market catalog (Gamma via the market poller, and
 * lookups of ids the chain shows first). The chain names tokens and conditions only; titles, outcome
 * names, which outcome is YES and the neg-risk grouping come from here.
 */
import type { MarketUpserted } from '../events/types.js';

export interface CatalogMarket {
  marketId: string;
  title: string;
  outcomes: readonly string[];
  tokenIds: readonly string[];
  yesIndex: number;
  negRisk: boolean;
  negRiskMarketId: string | null;
}

/** What the catalog needs of a market (a MarketUpserted, or a row of the markets table). */
export type CatalogEntry = Pick<
  MarketUpserted,
  'market_id' | 'title' | 'outcomes' | 'outcome_token_ids' | 'yes_index' | 'neg_risk' | 'neg_risk_market_id'
> &
  Partial<Pick<MarketUpserted, 'market_maker_address'>>;

export interface CatalogToken {
  market: CatalogMarket;
  outcomeIndex: number;
}

/** Events of a neg-risk market are ordered per neg-risk event (a conversion spans its questions); others per condition. */
export function ledgerGroupOf(market: CatalogMarket): string {
  return market.negRisk && market.negRiskMarketId ? market.negRiskMarketId : market.marketId;
}

export class ChainCatalog {
  private readonly tokens = new Map<string, CatalogToken>();
  private readonly conditions = new Map<string, CatalogMarket>();
  /** Legacy AMM (FixedProductMarketMaker) address -> its market: Gamma's marketMakerAddress. */
  private readonly marketMakers = new Map<string, CatalogMarket>();

  get size(): number {
    return this.conditions.size;
  }

  add(markets: Iterable<CatalogEntry>): void {
    for (const m of markets) {
      const market: CatalogMarket = {
        marketId: m.market_id,
        title: m.title,
        outcomes: m.outcomes,
        tokenIds: m.outcome_token_ids,
        yesIndex: Number(m.yes_index),
        negRisk: m.neg_risk,
        negRiskMarketId: m.neg_risk_market_id?.toLowerCase() ?? null,
      };
      this.conditions.set(market.marketId, market);
      if (m.market_maker_address) this.marketMakers.set(m.market_maker_address.toLowerCase(), market);
      market.tokenIds.forEach((token, outcomeIndex) => {
        if (token !== '') this.tokens.set(token, { market, outcomeIndex });
      });
    }
  }

  token(tokenId: string): CatalogToken | undefined {
    return this.tokens.get(tokenId);
  }

  condition(conditionId: string): CatalogMarket | undefined {
    return this.conditions.get(conditionId);
  }

  /** The market of a legacy AMM contract, if the catalog knows it. */
  marketOfMaker(address: string): CatalogMarket | undefined {
    return this.marketMakers.get(address.toLowerCase());
  }

  /** Every legacy AMM contract the catalog knows (the chain source reads their FPMM events). */
  marketMakerAddresses(): IterableIterator<string> {
    return this.marketMakers.keys();
  }
}
