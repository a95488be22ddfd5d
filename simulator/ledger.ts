/**
 * Every wallet's holdings and non-trade activity (SPLIT, MERGE, REDEEM). Shares are integer
 * micro-units, exactly the ERC-1155 balances the simulated chain holds: every amount the simulator
 * decides (what a wallet sells, merges, redeems) is read from here, so what it sends or burns on chain
 * is what the chain says it has (a CTF redemption burns the whole balance). The Data API's figures
 * (/positions avgPrice, realizedPnl) are derived from the same amounts with weighted-average cost.
 *
 * Token keys are `marketIndex * 2 + outcomeIndex`.
 */
import { fromMicro, micro } from './fill-amounts.js';

export interface Holding {
  /** Shares held, micro-units: the chain's balance. */
  shares: bigint;
  /** Average price paid per held share, as the Data API's `avgPrice`. */
  avgPrice: number;
  /** Shares bought in total (buys, splits), micro-units, as upstream's `totalBought`. */
  totalBought: bigint;
  realizedPnl: number;
}

type ActivityType = 'SPLIT' | 'MERGE' | 'REDEEM';

export interface ActivityEntry {
  type: ActivityType;
  walletIndex: number;
  marketIndex: number;
  /** Unix seconds. */
  timestamp: number;
  /** Micro-units: shares of each outcome split or merged; winning shares redeemed (after a void: all shares). */
  shares: bigint;
  /** Micro-units of collateral paid (split) or received (merge, redemption payout). */
  usdc: bigint;
  transactionHash: string;
  /** How many trades were on the tape when this happened: orders it among same-second trades. */
  tradesBefore: number;
  /** Generation order among ledger entries. */
  sequence: number;
  /** REDEEM: losing shares burned alongside the winning ones (they pay 0), micro-units. */
  losingShares?: bigint;
  /** REDEEM of a voided market: shares of each outcome burned (both pay 0.5), micro-units. */
  voidedHeld?: [bigint, bigint];
}

/**
 * Shares one wallet sends another with the CTF's safeTransferFrom (one token: TransferSingle) or
 * safeBatchTransferFrom (TransferBatch), the sender its own operator. Not a trade: no collateral moves.
 */
export interface ShareTransfer {
  fromWalletIndex: number;
  toWalletIndex: number;
  legs: Array<{ marketIndex: number; outcomeIndex: 0 | 1; shares: bigint }>;
  batch: boolean;
  timestamp: number;
  transactionHash: string;
}

/**
 * A NegRiskAdapter.convertPositions of `amount` NO shares of each question in `noMarkets` (the index
 * set) into `yesOut` YES shares of each of `yesMarkets` (every other question prepared by then) and
 * `collateralOut` collateral (neg-risk.ts has the amounts).
 */
export interface NegRiskConversion {
  walletIndex: number;
  eventIndex: number;
  /** The neg-risk market id (0x + 64 hex). */
  negRiskMarketId: string;
  feeBips: number;
  indexSet: bigint;
  /** Markets of the converted questions and of the other questions, each in question order. */
  noMarkets: number[];
  yesMarkets: number[];
  amount: bigint;
  fee: bigint;
  yesOut: bigint;
  collateralOut: bigint;
  timestamp: number;
  transactionHash: string;
}

/** When and in which transaction a split/merge/redeem happened. */
export interface ActivityStamp {
  timestamp: number;
  transactionHash: string;
  tradesBefore: number;
}

export function tokenKey(marketIndex: number, outcomeIndex: number): number {
  return marketIndex * 2 + outcomeIndex;
}

/** What a CTF redemption pays for `shares` of an outcome whose payout is numerator / denominator: rounded down, per outcome. */
function ctfPayout(shares: bigint, numerator: bigint, denominator: bigint): bigint {
  return (shares * numerator) / denominator;
}

export class Ledger {
  private readonly holdings: Map<number, Holding>[];
  private readonly activityByWallet: ActivityEntry[][];
  private sequence = 0;

  constructor(walletCount: number) {
    this.holdings = Array.from({ length: walletCount }, () => new Map());
    this.activityByWallet = Array.from({ length: walletCount }, () => []);
  }

  /** Shares held, micro-units. */
  heldMicro(walletIndex: number, token: number): bigint {
    return this.holdings[walletIndex]?.get(token)?.shares ?? 0n;
  }

  /** Shares held as a Data API number. */
  held(walletIndex: number, token: number): number {
    return fromMicro(this.heldMicro(walletIndex, token));
  }

  holdingsOf(walletIndex: number): ReadonlyMap<number, Holding> {
    return this.holdings[walletIndex] ?? new Map();
  }

  activityOf(walletIndex: number): readonly ActivityEntry[] {
    return this.activityByWallet[walletIndex] ?? [];
  }

  /** Receives `shares` for `usdc` paid (micro-units). */
  buy(walletIndex: number, token: number, shares: bigint, usdc: bigint): void {
    if (shares <= 0n) return;
    const holding = this.holding(walletIndex, token);
    const size = fromMicro(holding.shares);
    holding.avgPrice = (holding.avgPrice * size + fromMicro(usdc)) / (size + fromMicro(shares));
    holding.shares += shares;
    holding.totalBought += shares;
  }

  /** Sends `shares` away for `usdc` received. Selling more than is held would be a negative chain balance: the generator never does. */
  sell(walletIndex: number, token: number, shares: bigint, usdc: bigint): void {
    if (shares <= 0n) return;
    const holding = this.holding(walletIndex, token);
    if (shares > holding.shares) {
      throw new RangeError(`wallet ${walletIndex} token ${token}: sells ${shares} micro-shares, holds ${holding.shares}`);
    }
    holding.realizedPnl += fromMicro(usdc) - fromMicro(shares) * holding.avgPrice;
    holding.shares -= shares;
  }

  /** Moves `shares` from one wallet to another: the receiver's shares cost what the sender's did on average. */
  transfer(fromWalletIndex: number, toWalletIndex: number, token: number, shares: bigint): void {
    if (shares <= 0n) return;
    const from = this.holding(fromWalletIndex, token);
    if (shares > from.shares) {
      throw new RangeError(`wallet ${fromWalletIndex} token ${token}: transfers ${shares} micro-shares, holds ${from.shares}`);
    }
    from.shares -= shares;
    const to = this.holding(toWalletIndex, token);
    const size = fromMicro(to.shares);
    to.avgPrice = (to.avgPrice * size + from.avgPrice * fromMicro(shares)) / (size + fromMicro(shares));
    to.shares += shares;
  }

  /** Split q USDC into q of each outcome: a buy of both at 0.50. */
  split(walletIndex: number, marketIndex: number, shares: bigint, stamp: ActivityStamp): ActivityEntry {
    const [first, second] = halves(shares);
    this.buy(walletIndex, tokenKey(marketIndex, 0), shares, first);
    this.buy(walletIndex, tokenKey(marketIndex, 1), shares, second);
    return this.record({ type: 'SPLIT', walletIndex, marketIndex, shares, usdc: shares, ...stamp });
  }

  /** Merge q of each outcome back into q USDC: a sell of both at 0.50. */
  merge(walletIndex: number, marketIndex: number, shares: bigint, stamp: ActivityStamp): ActivityEntry {
    const [first, second] = halves(shares);
    this.sell(walletIndex, tokenKey(marketIndex, 0), shares, first);
    this.sell(walletIndex, tokenKey(marketIndex, 1), shares, second);
    return this.record({ type: 'MERGE', walletIndex, marketIndex, shares, usdc: shares, ...stamp });
  }

  /** Redeem everything held in a resolved market: the whole balance of both outcomes; winners pay 1, losers 0. */
  redeem(walletIndex: number, marketIndex: number, winningOutcome: 0 | 1, stamp: ActivityStamp): ActivityEntry {
    const winningToken = tokenKey(marketIndex, winningOutcome);
    const losingToken = tokenKey(marketIndex, winningOutcome === 0 ? 1 : 0);
    const winning = this.heldMicro(walletIndex, winningToken);
    const losingShares = this.heldMicro(walletIndex, losingToken);
    this.sell(walletIndex, winningToken, winning, winning);
    this.sell(walletIndex, losingToken, losingShares, 0n);
    return this.record({ type: 'REDEEM', walletIndex, marketIndex, shares: winning, usdc: winning, losingShares, ...stamp });
  }

  /** Redeem everything held in a voided (50-50) market: payout numerators [1, 1] over 2, each outcome's half rounded down. */
  redeemVoid(walletIndex: number, marketIndex: number, stamp: ActivityStamp): ActivityEntry {
    const yes = this.heldMicro(walletIndex, tokenKey(marketIndex, 0));
    const no = this.heldMicro(walletIndex, tokenKey(marketIndex, 1));
    const yesPayout = ctfPayout(yes, 1n, 2n);
    const noPayout = ctfPayout(no, 1n, 2n);
    this.sell(walletIndex, tokenKey(marketIndex, 0), yes, yesPayout);
    this.sell(walletIndex, tokenKey(marketIndex, 1), no, noPayout);
    return this.record({
      type: 'REDEEM',
      walletIndex,
      marketIndex,
      shares: yes + no,
      usdc: yesPayout + noPayout,
      voidedHeld: [yes, no],
      ...stamp,
    });
  }

  /**
   * A neg-risk conversion: the NO shares leave at their average price (the Data API's realizedPnl is
   * unchanged), the YES shares received cost what the NO shares did less the collateral received, spread
   * evenly (never below 0).
   */
  convert(conversion: NegRiskConversion): void {
    const { walletIndex, amount } = conversion;
    let noCost = 0;
    for (const market of conversion.noMarkets) {
      const token = tokenKey(market, 1);
      const avg = this.holding(walletIndex, token).avgPrice;
      noCost += avg * fromMicro(amount);
      this.sell(walletIndex, token, amount, micro(avg * fromMicro(amount)));
    }
    const yesCost = Math.max(0, noCost - fromMicro(conversion.collateralOut));
    const each = conversion.yesMarkets.length > 0 ? yesCost / conversion.yesMarkets.length : 0;
    for (const market of conversion.yesMarkets) this.buy(walletIndex, tokenKey(market, 0), conversion.yesOut, micro(each));
  }

  private holding(walletIndex: number, token: number): Holding {
    const wallet = this.holdings[walletIndex] as Map<number, Holding>;
    let holding = wallet.get(token);
    if (!holding) {
      holding = { shares: 0n, avgPrice: 0, totalBought: 0n, realizedPnl: 0 };
      wallet.set(token, holding);
    }
    return holding;
  }

  private record(entry: Omit<ActivityEntry, 'sequence'>): ActivityEntry {
    const recorded = { ...entry, sequence: this.sequence++ };
    this.activityByWallet[entry.walletIndex]?.push(recorded);
    return recorded;
  }
}

/** The two halves of a complete set of `amount`: an odd micro-unit to the first outcome. */
function halves(amount: bigint): [bigint, bigint] {
  const second = amount / 2n;
  return [amount - second, second];
}
