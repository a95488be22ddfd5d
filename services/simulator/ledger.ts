/**
 * Every wallet's holdings and non-trade activity (SPLIT, MERGE, REDEEM), kept with the same
 * weighted-average-cost rules the service uses (docs: definitions.md), so /positions and /activity
 * are consistent with /trades: replaying a wallet's activity reproduces its positions.
 *
 * Token keys are `marketIndex * 2 + outcomeIndex`.
 */

export interface Holding {
  size: number;
  avgPrice: number;
  /** Shares bought in total (buys, splits), as upstream's `totalBought`. */
  totalBought: number;
  realizedPnl: number;
}

export type ActivityType = 'SPLIT' | 'MERGE' | 'REDEEM';

export interface ActivityEntry {
  type: ActivityType;
  walletIndex: number;
  marketIndex: number;
  /** Unix seconds. */
  timestamp: number;
  /** Shares (per outcome) split/merged, or winning shares redeemed. */
  size: number;
  usdcSize: number;
  transactionHash: string;
  /** How many trades were on the tape when this happened: orders it among same-second trades. */
  tradesBefore: number;
  /** Generation order among ledger entries. */
  sequence: number;
  /** REDEEM: losing shares burned alongside the winning ones (they pay 0). */
  losingSize?: number;
  /** REDEEM of a voided market: shares of each outcome burned (both pay 0.5). */
  voidedHeld?: [number, number];
}

/** When and in which transaction a split/merge/redeem happened. */
export interface ActivityStamp {
  timestamp: number;
  transactionHash: string;
  tradesBefore: number;
}

/** Shares below this are dust from rounding and are treated as zero. */
export const DUST_SHARES = 1e-6;

export function tokenKey(marketIndex: number, outcomeIndex: number): number {
  return marketIndex * 2 + outcomeIndex;
}

export class Ledger {
  private readonly holdings: Map<number, Holding>[];
  private readonly activityByWallet: ActivityEntry[][];
  private sequence = 0;

  constructor(walletCount: number) {
    this.holdings = Array.from({ length: walletCount }, () => new Map());
    this.activityByWallet = Array.from({ length: walletCount }, () => []);
  }

  held(walletIndex: number, token: number): number {
    return this.holdings[walletIndex]?.get(token)?.size ?? 0;
  }

  holdingsOf(walletIndex: number): ReadonlyMap<number, Holding> {
    return this.holdings[walletIndex] ?? new Map();
  }

  activityOf(walletIndex: number): readonly ActivityEntry[] {
    return this.activityByWallet[walletIndex] ?? [];
  }

  buy(walletIndex: number, token: number, shares: number, price: number): void {
    const holding = this.holding(walletIndex, token);
    holding.avgPrice = (holding.avgPrice * holding.size + price * shares) / (holding.size + shares);
    holding.size += shares;
    holding.totalBought += shares;
  }

  /** Sells never exceed holdings (the trade generator guarantees it); dust is cleared. */
  sell(walletIndex: number, token: number, shares: number, price: number): void {
    const holding = this.holding(walletIndex, token);
    const sold = Math.min(shares, holding.size);
    holding.realizedPnl += sold * (price - holding.avgPrice);
    holding.size -= sold;
    if (holding.size < DUST_SHARES) holding.size = 0;
  }

  /** Split q USDC into q of each outcome: a buy of both at 0.50. */
  split(walletIndex: number, marketIndex: number, shares: number, stamp: ActivityStamp): ActivityEntry {
    this.buy(walletIndex, tokenKey(marketIndex, 0), shares, 0.5);
    this.buy(walletIndex, tokenKey(marketIndex, 1), shares, 0.5);
    return this.record({ type: 'SPLIT', walletIndex, marketIndex, size: shares, usdcSize: shares, ...stamp });
  }

  /** Merge q of each outcome back into q USDC: a sell of both at 0.50. */
  merge(walletIndex: number, marketIndex: number, shares: number, stamp: ActivityStamp): ActivityEntry {
    this.sell(walletIndex, tokenKey(marketIndex, 0), shares, 0.5);
    this.sell(walletIndex, tokenKey(marketIndex, 1), shares, 0.5);
    return this.record({ type: 'MERGE', walletIndex, marketIndex, size: shares, usdcSize: shares, ...stamp });
  }

  /** Redeem everything held in a resolved market: winners pay 1, losers 0. */
  redeem(walletIndex: number, marketIndex: number, winningOutcome: 0 | 1, stamp: ActivityStamp): ActivityEntry {
    const winningToken = tokenKey(marketIndex, winningOutcome);
    const losingToken = tokenKey(marketIndex, winningOutcome === 0 ? 1 : 0);
    const payout = this.held(walletIndex, winningToken);
    const losingSize = this.held(walletIndex, losingToken);
    this.sell(walletIndex, winningToken, payout, 1);
    this.sell(walletIndex, losingToken, losingSize, 0);
    return this.record({ type: 'REDEEM', walletIndex, marketIndex, size: payout, usdcSize: payout, losingSize, ...stamp });
  }

  /** Redeem everything held in a voided (50-50) market: every share pays 0.5. */
  redeemVoid(walletIndex: number, marketIndex: number, stamp: ActivityStamp): ActivityEntry {
    const yes = this.held(walletIndex, tokenKey(marketIndex, 0));
    const no = this.held(walletIndex, tokenKey(marketIndex, 1));
    this.sell(walletIndex, tokenKey(marketIndex, 0), yes, 0.5);
    this.sell(walletIndex, tokenKey(marketIndex, 1), no, 0.5);
    return this.record({
      type: 'REDEEM',
      walletIndex,
      marketIndex,
      size: yes + no,
      usdcSize: (yes + no) / 2,
      voidedHeld: [yes, no],
      ...stamp,
    });
  }

  private holding(walletIndex: number, token: number): Holding {
    const wallet = this.holdings[walletIndex] as Map<number, Holding>;
    let holding = wallet.get(token);
    if (!holding) {
      holding = { size: 0, avgPrice: 0, totalBought: 0, realizedPnl: 0 };
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
