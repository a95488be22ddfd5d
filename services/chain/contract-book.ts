/**
 * Which configured contract an address is, what to ask eth_getLogs for in a block range, and which
 * addresses are system actors (exchanges, the NegRiskAdapter, collateral adapters) rather than users.
 */
import type { ChainConfig } from '../config.js';
import { LOG_TOPICS, TRANSFER_TOPICS } from './abis.js';

export type ContractKind = 'exchangeV1' | 'exchangeV2' | 'conditionalTokens' | 'negRiskAdapter' | 'fpmm';

/** Where the legacy AMM contracts come from: the market catalog (Gamma's marketMakerAddress). */
export interface MarketMakerDirectory {
  /** The market's outcome tokens, in outcome order (an FPMM event names an outcome index). */
  marketOfMaker(address: string): { tokenIds: readonly string[] } | undefined;
  marketMakerAddresses(): Iterable<string>;
}

export interface LogQuery {
  addresses: string[];
  topics: string[];
}

export class ContractBook {
  private readonly kinds = new Map<string, ContractKind>();
  private readonly starts = new Map<string, number>();
  readonly conditionalTokens: string;
  readonly negRiskAdapter: string;
  readonly exchanges: ReadonlySet<string>;
  readonly negRiskExchanges: ReadonlySet<string>;
  readonly collateralAdapters: ReadonlySet<string>;
  readonly wrappedCollateral: string;
  /** Whether eth_getLogs asks the CTF for its ERC-1155 transfers (CHAIN_READ_TRANSFERS). */
  readonly readsTransfers: boolean;
  /** Every configured contract and token: never a user's wallet, so never one side of a wallet-to-wallet transfer. */
  private readonly system: ReadonlySet<string>;

  /** Legacy AMM contracts: known from the catalog, so the set grows as the catalog learns markets. */
  private readonly marketMakers: MarketMakerDirectory | null;

  constructor(contracts: ChainConfig['contracts'], options: { readTransfers?: boolean; marketMakers?: MarketMakerDirectory } = {}) {
    this.marketMakers = options.marketMakers ?? null;
    const add = (kind: ContractKind, contract: { address: string; startBlock: number }) => {
      this.kinds.set(contract.address, kind);
      this.starts.set(contract.address, contract.startBlock);
    };
    add('exchangeV1', contracts.exchangeV1);
    add('exchangeV1', contracts.negRiskExchangeV1);
    add('exchangeV2', contracts.exchangeV2);
    add('exchangeV2', contracts.negRiskExchangeV2);
    add('conditionalTokens', contracts.conditionalTokens);
    add('negRiskAdapter', contracts.negRiskAdapter);
    this.conditionalTokens = contracts.conditionalTokens.address;
    this.negRiskAdapter = contracts.negRiskAdapter.address;
    this.exchanges = new Set([
      contracts.exchangeV1.address,
      contracts.negRiskExchangeV1.address,
      contracts.exchangeV2.address,
      contracts.negRiskExchangeV2.address,
    ]);
    this.negRiskExchanges = new Set([contracts.negRiskExchangeV1.address, contracts.negRiskExchangeV2.address]);
    this.collateralAdapters = new Set(contracts.collateralAdapters);
    this.wrappedCollateral = contracts.wrappedCollateral;
    this.readsTransfers = options.readTransfers ?? true;
    this.system = new Set(
      [
        ...this.kinds.keys(),
        ...contracts.collateralAdapters,
        contracts.usdcE,
        contracts.pusd,
        contracts.wrappedCollateral,
        '0x0000000000000000000000000000000000000000',
      ].map((a) => a.toLowerCase()),
    );
  }

  /**
   * The zero address (mints and burns), the exchanges, the CTF, the NegRiskAdapter, the collateral
   * adapters and the collateral tokens: a transfer to or from one is a leg of a fill, split, merge,
   * redemption or conversion, already represented by that event.
   */
  isSystem(address: string): boolean {
    return this.system.has(address.toLowerCase()) || this.isMarketMaker(address);
  }

  /** A legacy AMM the catalog knows: its CTF splits, merges and ERC-1155 legs belong to its own FPMM events. */
  isMarketMaker(address: string): boolean {
    return this.marketMakers !== null && this.marketMakers.marketOfMaker(address.toLowerCase()) !== undefined;
  }

  /** The outcome tokens of a legacy AMM's market, when the catalog knows it. */
  marketMakerTokens(address: string): readonly string[] | undefined {
    return this.marketMakers?.marketOfMaker(address.toLowerCase())?.tokenIds;
  }

  kindOf(address: string): ContractKind | undefined {
    return this.kinds.get(address.toLowerCase()) ?? (this.isMarketMaker(address) ? 'fpmm' : undefined);
  }

  /**
   * Exchanges and the NegRiskAdapter act for users (a MINT/MERGE match splits through the CTF as the
   * exchange; a neg-risk split shows on the CTF as the adapter): their own split/merge/redeem events
   * are internal legs, not user actions (Polymarket's PnL subgraph skips them the same way).
   */
  isInternalActor(address: string): boolean {
    const a = address.toLowerCase();
    return this.exchanges.has(a) || a === this.negRiskAdapter || this.isMarketMaker(a);
  }

  /** v2 collateral adapters act for the user in the same transaction; the user shows in ERC-1155 transfers. */
  isCollateralAdapter(address: string): boolean {
    return this.collateralAdapters.has(address.toLowerCase());
  }

  /** Contracts (and their topics) that can have events in [from, to], by their first blocks. */
  logQuery(toBlock: number): LogQuery {
    const addresses: string[] = [];
    const topics = new Set<string>();
    for (const [address, kind] of this.kinds) {
      if ((this.starts.get(address) ?? 0) > toBlock) continue;
      addresses.push(address);
      for (const topic of LOG_TOPICS[kind]) topics.add(topic);
      if (kind === 'conditionalTokens' && this.readsTransfers) for (const topic of TRANSFER_TOPICS) topics.add(topic);
    }
    // Every legacy AMM the catalog knows: a fixed set (no FPMM market has been created since the order
    // book replaced them), so the filter stays as large as Polymarket's AMM history, never larger.
    let makers = 0;
    for (const address of this.marketMakers?.marketMakerAddresses() ?? []) {
      addresses.push(address);
      makers++;
    }
    if (makers > 0) for (const topic of LOG_TOPICS.fpmm) topics.add(topic);
    return { addresses, topics: [...topics] };
  }

  /** The earliest block any configured contract can have events in. */
  earliestStartBlock(): number {
    return Math.min(...this.starts.values());
  }

  /**
   * Where the history ends downwards: the earliest known (non-zero) start among the contracts; 0 when
   * none is known. A contract configured with 0 (its deployment block not published, e.g. the v2
   * exchanges) does not pull it to 0: every fill, split and transfer is of ConditionalTokens
   * positions, so no configured contract has settlement events before the CTF's first block.
   */
  historyStartBlock(): number {
    const known = [...this.starts.values()].filter((block) => block > 0);
    return known.length === 0 ? 0 : Math.min(...known);
  }
}
