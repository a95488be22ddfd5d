/**
 * The simulator's own accounting of every wallet: what the chain it serves says each wallet paid,
 * received, was charged and holds, and the figures the API serves about it (realized PnL, cost basis,
 * volume, fills, fees, won/lost markets, the daily realized curve), computed from the journal with the
 * exact micro-unit amounts the chain's logs carry (chain-transactions.ts). It is the reference
 * `npm run verify` holds the service's position ledger to, so it is written from the documented
 * definitions (api/openapi.yaml, docs/POSITIONS.md, definitions.md) and shares no code with the ledger.
 *
 * Everything is bigint micro-units (USDC and shares both have 6 decimals). Changes apply in chain order:
 * by second (block), then in the block's transaction order (journal order; a reorg keeps it: chain.ts).
 */
import type { JournalEntry } from './chain-journal.js';
import { redemptionAmounts } from './chain-transactions.js';
import type { SimulatedChain } from './chain.js';
import type { NegRiskConversion, ShareTransfer } from './ledger.js';
import type { SimulatorState } from './state.js';
import type { SimMarket } from './world-types.js';

/** One (wallet, outcome token). */
interface TokenTruth {
  token_id: string;
  market_id: string;
  outcome_index: number;
  /** The chain's ERC-1155 balance: every share received less every share sent or burned. */
  shares_micro: bigint;
  /** Shares the weighted-average cost ledger holds (sells take out at most what it holds). */
  held_micro: bigint;
  /** Cost basis of the held shares. */
  cost_basis_micro: bigint;
  realized_micro: bigint;
  /** Collateral paid for this token: buys, and its half of splits. */
  cost_paid_in_micro: bigint;
  /** Shares v1 buys of this token paid as fees (they went to the exchange), and their value at the fill prices (in fees). */
  fee_shares_micro: bigint;
  fee_shares_value_micro: bigint;
  /** Shares received from and sent to other wallets by ERC-1155 transfer. */
  transferred_in_micro: bigint;
  transferred_out_micro: bigint;
}

/** One (wallet, market) for win/loss and the zero-sum check. */
interface MarketTruth {
  market_id: string;
  /** Payout per outcome in micro-USDC per share (1,000,000 = 1) once resolved on chain by `through`; null before. */
  payout: [bigint, bigint] | null;
  /** Unix seconds of its on-chain resolution, when `payout` is set. */
  resolved_at: number | null;
  voided: boolean;
  realized_micro: bigint;
  cost_basis_micro: bigint;
  /** Held shares at the payout (0 until resolved). */
  payout_value_micro: bigint;
  cost_paid_in_micro: bigint;
  cash_paid_micro: bigint;
  cash_received_micro: bigint;
  fees_micro: bigint;
  /** The cost that left with shares transferred out, and came with shares transferred in. */
  transfer_out_cost_micro: bigint;
  transfer_in_cost_micro: bigint;
  /** Whether every fill in it had a simulated wallet on both sides (no operator fills). */
  both_sides_wallets: boolean;
  /**
   * Voided markets: balances (one per outcome) the wallet redeemed with an odd number of micro-shares.
   * The CTF pays each outcome's half rounded down, so each keeps half a micro-unit (the zero sum counts them).
   */
  void_odd_redeemed: number;
}

/**
 * One neg-risk conversion of the wallet, for the zero sum (the adapter is its counterparty): `amount`
 * NO of each `no_market_ids` market went to the burn address, `yes_out` YES of each `yes_market_ids`
 * market and `collateral_out` collateral (counted in `cash_market_id`'s cash received) came back.
 */
interface ConversionTruth {
  neg_risk_market_id: string;
  at: number;
  index_set: string;
  amount_micro: bigint;
  fee_micro: bigint;
  yes_out_micro: bigint;
  collateral_out_micro: bigint;
  no_market_ids: string[];
  yes_market_ids: string[];
  cash_market_id: string;
}

export interface WalletTruth {
  address: string;
  /** Collateral paid: buys (before fees: a v1 buy's fee shares at their fill price are not in it) and splits. */
  cash_paid_micro: bigint;
  /** Collateral received: sells (before fees), merges and redemption payouts. */
  cash_received_micro: bigint;
  /** Fees charged, USDC (a v1 buy's, taken in shares, at the fill price). */
  fees_micro: bigint;
  /**
   * ERC-1155 transfers to and from other wallets move shares at the sender's average cost: the sender
   * realizes nothing and its basis leaves with them (out), the receiver's basis is that cost (in, counted
   * as paid in). So realized = cash received - cash paid + cost basis + out - in.
   */
  transfer_out_cost_micro: bigint;
  transfer_in_cost_micro: bigint;
  transfers_out: number;
  transfers_in: number;
  /** Trades against a legacy AMM (FPMMBuy/FPMMSell), counted in `trades` too. */
  amm_trades: number;
  conversions: ConversionTruth[];
  realized_micro: bigint;
  cost_basis_micro: bigint;
  /** Collateral of every fill, maker and taker. */
  volume_micro: bigint;
  /** Fills, maker and taker. */
  trades: number;
  markets_traded: number;
  /** Resolved, not voided markets with a cost basis paid in and net PnL above / below 0. */
  won: number;
  lost: number;
  /** Realized PnL per UTC day of its changes' block time, oldest first; days without a change left out. */
  realized_by_day: Array<{ date: string; realized_micro: bigint }>;
  tokens: TokenTruth[];
  markets: MarketTruth[];
  first_trade_at: number | null;
  last_trade_at: number | null;
}

const UNIT = 1_000_000n;

/** a x b / c rounded half up (all non-negative but a). */
function mulDivHalfUp(a: bigint, b: bigint, c: bigint): bigint {
  const product = a * b;
  const sign = product < 0n ? -1n : 1n;
  const magnitude = product < 0n ? -product : product;
  return (sign * (2n * magnitude + c)) / (2n * c);
}

class TokenBook {
  shares = 0n;
  held = 0n;
  cost = 0n;
  realized = 0n;
  paidIn = 0n;
  /** Shares v1 buys of this token paid as fees (they went to the exchange), and their value at the fill prices. */
  feeShares = 0n;
  feeSharesValue = 0n;
  transferredIn = 0n;
  transferredOut = 0n;

  constructor(
    readonly marketIndex: number,
    readonly outcomeIndex: 0 | 1,
  ) {}

  receive(quantity: bigint, cost: bigint): void {
    this.shares += quantity;
    this.held += quantity;
    this.cost += cost;
    this.paidIn += cost;
  }

  /** Receives `quantity` shares another wallet sent, at the cost they had there (as if paid in). */
  transferIn(quantity: bigint, cost: bigint): void {
    this.receive(quantity, cost);
    this.transferredIn += quantity;
  }

  /** Sends `quantity` shares to another wallet at their average cost: nothing realized; returns the cost that left. */
  transferOut(quantity: bigint): bigint {
    this.shares -= quantity;
    this.transferredOut += quantity;
    const counted = quantity < this.held ? quantity : this.held;
    if (counted <= 0n) return 0n;
    const costOut = counted === this.held ? this.cost : mulDivHalfUp(this.cost, counted, this.held);
    this.held -= counted;
    this.cost -= costOut;
    return costOut;
  }

  /** Gives up `quantity` shares at their average cost (a conversion's NO): nothing realized; returns the cost that left. */
  sendAtCost(quantity: bigint): bigint {
    this.shares -= quantity;
    const counted = quantity < this.held ? quantity : this.held;
    if (counted <= 0n) return 0n;
    const costOut = counted === this.held ? this.cost : mulDivHalfUp(this.cost, counted, this.held);
    this.held -= counted;
    this.cost -= costOut;
    return costOut;
  }

  /** Sends `quantity` shares away for `proceeds`; returns the realized PnL of the change. */
  send(quantity: bigint, proceeds: bigint): bigint {
    this.shares -= quantity;
    const counted = quantity < this.held ? quantity : this.held;
    if (counted <= 0n) return 0n;
    // The cost of the shares sold leaves the basis at the average (all of it when everything is sold),
    // so the cost taken out plus the basis left is always what was paid in.
    const costOut = counted === this.held ? this.cost : mulDivHalfUp(this.cost, counted, this.held);
    // Shares the book never held (none on a real chain) earn nothing: only their part of the proceeds counts.
    const counterProceeds = counted === quantity ? proceeds : mulDivHalfUp(proceeds, counted, quantity);
    this.held -= counted;
    this.cost -= costOut;
    const realized = counterProceeds - costOut;
    this.realized += realized;
    return realized;
  }
}

interface MarketFlows {
  cashPaid: bigint;
  cashReceived: bigint;
  fees: bigint;
  transferOutCost: bigint;
  transferInCost: bigint;
  operatorFills: boolean;
  traded: boolean;
  voidOddRedeemed: number;
}

/** Accumulates one wallet's changes in chain order. */
class WalletBook {
  readonly tokens = new Map<number, TokenBook>();
  readonly flows = new Map<number, MarketFlows>();
  readonly realizedByDay = new Map<string, bigint>();
  cashPaid = 0n;
  cashReceived = 0n;
  fees = 0n;
  transferOutCost = 0n;
  transferInCost = 0n;
  transfersOut = 0;
  transfersIn = 0;
  ammTrades = 0;
  readonly conversions: ConversionTruth[] = [];
  volume = 0n;
  trades = 0;
  firstTrade: number | null = null;
  lastTrade: number | null = null;

  token(marketIndex: number, outcomeIndex: 0 | 1): TokenBook {
    const key = marketIndex * 2 + outcomeIndex;
    let book = this.tokens.get(key);
    if (!book) {
      book = new TokenBook(marketIndex, outcomeIndex);
      this.tokens.set(key, book);
    }
    return book;
  }

  market(marketIndex: number): MarketFlows {
    let flows = this.flows.get(marketIndex);
    if (!flows) {
      flows = {
        cashPaid: 0n,
        cashReceived: 0n,
        fees: 0n,
        transferOutCost: 0n,
        transferInCost: 0n,
        operatorFills: false,
        traded: false,
        voidOddRedeemed: 0,
      };
      this.flows.set(marketIndex, flows);
    }
    return flows;
  }

  pay(marketIndex: number, amount: bigint): void {
    this.cashPaid += amount;
    this.market(marketIndex).cashPaid += amount;
  }

  receive(marketIndex: number, amount: bigint): void {
    this.cashReceived += amount;
    this.market(marketIndex).cashReceived += amount;
  }

  realize(second: number, amount: bigint): void {
    if (amount === 0n) return;
    const day = new Date(second * 1000).toISOString().slice(0, 10);
    this.realizedByDay.set(day, (this.realizedByDay.get(day) ?? 0n) + amount);
  }

  /**
   * One fill of this wallet: `shares` for `usdc`, and its fee: in collateral, or (a v1 buy) `feeShares`
   * of the shares bought, which never reach the wallet. Those are valued at the fill's price
   * (usdc x feeShares / shares, half up): the fee in USDC; the shares kept cost the rest. Cash paid and
   * received are before fees.
   */
  fill(
    second: number,
    marketIndex: number,
    outcomeIndex: 0 | 1,
    buys: boolean,
    amounts: { shares: bigint; usdc: bigint; fee: bigint; feeShares: bigint },
  ): void {
    const { shares, usdc, fee, feeShares } = amounts;
    const book = this.token(marketIndex, outcomeIndex);
    const feeValue = feeShares === 0n ? 0n : mulDivHalfUp(usdc, feeShares, shares);
    if (buys) {
      book.receive(shares - feeShares, usdc - feeValue);
      this.pay(marketIndex, usdc - feeValue);
      book.feeShares += feeShares;
      book.feeSharesValue += feeValue;
    } else {
      this.realize(second, book.send(shares, usdc));
      this.receive(marketIndex, usdc);
    }
    this.fees += fee + feeValue;
    this.market(marketIndex).fees += fee + feeValue;
    this.market(marketIndex).traded = true;
    this.volume += usdc;
    this.trades += 1;
    this.firstTrade ??= second;
    this.lastTrade = second;
  }
}

/** The two halves of a complete set of A: an odd micro-unit goes to the first outcome. */
function halves(amount: bigint): [bigint, bigint] {
  const second = amount / 2n;
  return [amount - second, second];
}

export class SimulatorTruth {
  /** Per wallet index: its journal entries in journal order. */
  private byWallet: JournalEntry[][] = [];
  /** Second at which each market resolved on chain (a ConditionResolution). */
  private resolvedAt = new Map<number, number>();
  private indexed = 0;
  private lastIndexed: JournalEntry | undefined;
  private readonly transferCosts = new Map<ShareTransfer, bigint[]>();

  constructor(
    private readonly state: SimulatorState,
    private readonly chain: SimulatedChain,
  ) {}

  /** Wallet indexes with at least one change up to `throughSecond`, ascending. */
  walletsWithChanges(throughSecond: number): number[] {
    this.index();
    const out: number[] = [];
    this.byWallet.forEach((entries, walletIndex) => {
      if ((entries[0]?.second ?? Number.POSITIVE_INFINITY) <= throughSecond) out.push(walletIndex);
    });
    return out;
  }

  /** The wallet's accounts over every change in blocks up to `throughSecond`'s (or, given `before`, up to that change, without it). */
  wallet(walletIndex: number, throughSecond: number, before?: JournalEntry): WalletTruth {
    this.index();
    const book = new WalletBook();
    for (const entry of this.chainOrder(this.byWallet[walletIndex] ?? [], throughSecond)) {
      if (entry === before) break;
      this.apply(book, walletIndex, entry);
    }
    return this.report(walletIndex, book, throughSecond);
  }

  /**
   * The cost each leg of a transfer takes from its sender: the sender's book replayed in chain order up to
   * the transfer (the receiver's cost is the sender's, by definition). Cached per transfer: a reorg
   * renumbers logs but keeps the order.
   */
  private costsSent(entry: Extract<JournalEntry, { kind: 'transfer' }>): bigint[] {
    const cached = this.transferCosts.get(entry.transfer);
    if (cached) return cached;
    const sender = entry.transfer.fromWalletIndex;
    const book = new WalletBook();
    for (const earlier of this.chainOrder(this.byWallet[sender] ?? [], entry.second)) {
      if (earlier === entry) break;
      this.apply(book, sender, earlier);
    }
    const costs = entry.transfer.legs.map((leg) => book.token(leg.marketIndex, leg.outcomeIndex).transferOut(leg.shares));
    this.transferCosts.set(entry.transfer, costs);
    return costs;
  }

  /** Entries up to `throughSecond` in chain order, which is journal order (a reorg renumbers logs, never reorders). */
  private chainOrder(entries: readonly JournalEntry[], throughSecond: number): JournalEntry[] {
    let end = 0;
    while (end < entries.length && (entries[end] as JournalEntry).second <= throughSecond) end++;
    return entries.slice(0, end);
  }

  private apply(book: WalletBook, walletIndex: number, entry: JournalEntry): void {
    if (entry.kind === 'trade') {
      const { trade } = entry;
      // A pool's market: the legacy AMM's amounts (its fee in collateral), else the exchange's of the time.
      const amounts = this.chain.transactions.tradeAmounts(trade, entry.second);
      if (trade.walletIndex === walletIndex && this.state.ammPool(trade.marketIndex) !== null) book.ammTrades += 1;
      const takerBuys = trade.side === 'BUY';
      // A wallet is never both sides of a match (makers never take), but count each role it has.
      if (trade.walletIndex === walletIndex) {
        const inShares = amounts.takerFeeAsset === 'shares';
        book.fill(entry.second, trade.marketIndex, trade.outcomeIndex, takerBuys, {
          shares: amounts.shares,
          usdc: amounts.usdc,
          fee: inShares ? 0n : amounts.takerFee,
          feeShares: inShares ? amounts.takerFee : 0n,
        });
        if (trade.makerWalletIndex < 0) book.market(trade.marketIndex).operatorFills = true;
      }
      if (trade.makerWalletIndex === walletIndex) {
        book.fill(entry.second, trade.marketIndex, trade.outcomeIndex, !takerBuys, {
          shares: amounts.shares,
          usdc: amounts.usdc,
          fee: 0n,
          feeShares: 0n,
        });
      }
      return;
    }
    if (entry.kind === 'transfer') {
      const { transfer } = entry;
      // Both ends are this wallet only if it sent to itself, which the simulator never does.
      if (transfer.fromWalletIndex === walletIndex) book.transfersOut += 1;
      if (transfer.toWalletIndex === walletIndex) book.transfersIn += 1;
      const costs = this.costsSent(entry);
      for (const [i, leg] of transfer.legs.entries()) {
        const cost = costs[i] as bigint;
        const flows = book.market(leg.marketIndex);
        if (transfer.fromWalletIndex === walletIndex) {
          book.token(leg.marketIndex, leg.outcomeIndex).transferOut(leg.shares);
          book.transferOutCost += cost;
          flows.transferOutCost += cost;
        }
        if (transfer.toWalletIndex === walletIndex) {
          book.token(leg.marketIndex, leg.outcomeIndex).transferIn(leg.shares, cost);
          book.transferInCost += cost;
          flows.transferInCost += cost;
        }
      }
      return;
    }
    if (entry.kind === 'conversion') {
      this.convert(book, entry.second, entry.conversion);
      return;
    }
    if (entry.kind !== 'activity') return;
    const { activity } = entry;
    const market = this.market(activity.marketIndex);
    const yes = book.token(market.index, 0);
    const no = book.token(market.index, 1);
    switch (activity.type) {
      case 'SPLIT': {
        const amount = activity.shares;
        const [yesCost, noCost] = halves(amount);
        yes.receive(amount, yesCost);
        no.receive(amount, noCost);
        book.pay(market.index, amount);
        return;
      }
      case 'MERGE': {
        const amount = activity.shares;
        const [yesProceeds, noProceeds] = halves(amount);
        book.realize(entry.second, yes.send(amount, yesProceeds) + no.send(amount, noProceeds));
        book.receive(market.index, amount);
        return;
      }
      case 'REDEEM': {
        const { burned, payout } = redemptionAmounts(activity, market.winningOutcome);
        // Each outcome's shares leave at its payout; after a void the total payout is the chain's, the
        // first outcome taking half its shares rounded down (the CTF pays each index set so) and the
        // second the rest.
        let proceeds: [bigint, bigint];
        if (market.voided) {
          const first = burned[0] / 2n;
          proceeds = [first, payout - first];
          book.market(market.index).voidOddRedeemed += Number(burned[0] % 2n) + Number(burned[1] % 2n);
        } else proceeds = market.winningOutcome === 0 ? [payout, 0n] : [0n, payout];
        book.realize(entry.second, yes.send(burned[0], proceeds[0]) + no.send(burned[1], proceeds[1]));
        book.receive(market.index, payout);
        return;
      }
    }
  }

  /**
   * A neg-risk conversion, by docs/POSITIONS.md's definition: the NO shares leave at their average cost
   * (no PnL); their cost less the collateral received becomes the cost of the YES shares received,
   * split evenly over the other questions (the remainder of the division on the first); collateral
   * beyond the NO cost is realized, on the first converted question's NO, and so is a loss when every
   * question is converted (no YES shares to carry the cost). The adapter's collateral fee,
   * (k - 1) x f, counts in the fees; its cut of the YES shares never reaches the wallet.
   */
  private convert(book: WalletBook, second: number, conversion: NegRiskConversion): void {
    const { amount, fee, yesOut, collateralOut, noMarkets, yesMarkets } = conversion;
    let noCost = 0n;
    for (const m of noMarkets) noCost += book.token(m, 1).sendAtCost(amount);
    const first = noMarkets[0] as number;
    // What the YES shares do not carry on is realized: collateral beyond the NO cost, or with no YES
    // shares at all (every question converted) the difference whatever its sign.
    const realized = yesMarkets.length === 0 || collateralOut > noCost ? collateralOut - noCost : 0n;
    if (realized !== 0n) {
      book.token(first, 1).realized += realized;
      book.realize(second, realized);
    }
    book.receive(first, collateralOut);
    const collateralFee = BigInt(noMarkets.length - 1) * fee;
    book.fees += collateralFee;
    book.market(first).fees += collateralFee;
    const yesCost = yesMarkets.length > 0 && noCost > collateralOut ? noCost - collateralOut : 0n;
    const n = BigInt(yesMarkets.length);
    yesMarkets.forEach((m, i) => {
      const each = yesCost / n;
      book.token(m, 0).receive(yesOut, i === 0 ? yesCost - each * (n - 1n) : each);
    });
    const id = (m: number) => this.market(m).conditionId;
    book.conversions.push({
      neg_risk_market_id: conversion.negRiskMarketId,
      at: second,
      index_set: conversion.indexSet.toString(),
      amount_micro: amount,
      fee_micro: fee,
      yes_out_micro: yesOut,
      collateral_out_micro: collateralOut,
      no_market_ids: noMarkets.map(id),
      yes_market_ids: yesMarkets.map(id),
      cash_market_id: id(first),
    });
  }

  private report(walletIndex: number, book: WalletBook, throughSecond: number): WalletTruth {
    const markets = this.state.world.markets;
    const tokens: TokenTruth[] = [];
    const perMarket = new Map<number, MarketTruth>();
    let realized = 0n;
    let costBasis = 0n;
    for (const token of [...book.tokens.values()].sort((a, b) => a.marketIndex - b.marketIndex || a.outcomeIndex - b.outcomeIndex)) {
      const market = markets[token.marketIndex] as SimMarket;
      tokens.push({
        token_id: market.tokenIds[token.outcomeIndex] as string,
        market_id: market.conditionId,
        outcome_index: token.outcomeIndex,
        shares_micro: token.shares,
        held_micro: token.held,
        cost_basis_micro: token.cost,
        realized_micro: token.realized,
        cost_paid_in_micro: token.paidIn,
        transferred_in_micro: token.transferredIn,
        transferred_out_micro: token.transferredOut,
        fee_shares_micro: token.feeShares,
        fee_shares_value_micro: token.feeSharesValue,
      });
      realized += token.realized;
      costBasis += token.cost;
      let entry = perMarket.get(token.marketIndex);
      if (!entry) {
        const flows = book.market(token.marketIndex);
        entry = {
          market_id: market.conditionId,
          payout: this.payout(market, throughSecond),
          resolved_at: this.payout(market, throughSecond) ? (this.resolvedAt.get(token.marketIndex) ?? null) : null,
          voided: market.voided,
          realized_micro: 0n,
          cost_basis_micro: 0n,
          payout_value_micro: 0n,
          cost_paid_in_micro: 0n,
          cash_paid_micro: flows.cashPaid,
          cash_received_micro: flows.cashReceived,
          fees_micro: flows.fees,
          transfer_out_cost_micro: flows.transferOutCost,
          transfer_in_cost_micro: flows.transferInCost,
          both_sides_wallets: !flows.operatorFills,
          void_odd_redeemed: flows.voidOddRedeemed,
        };
        perMarket.set(token.marketIndex, entry);
      }
      entry.realized_micro += token.realized;
      entry.cost_basis_micro += token.cost;
      entry.cost_paid_in_micro += token.paidIn;
      if (entry.payout) entry.payout_value_micro += (token.held * (entry.payout[token.outcomeIndex] as bigint)) / UNIT;
    }
    let won = 0;
    let lost = 0;
    for (const market of perMarket.values()) {
      if (!market.payout || market.voided || market.cost_paid_in_micro <= 0n) continue;
      const net = market.realized_micro + market.payout_value_micro - market.cost_basis_micro;
      if (net > 0n) won++;
      else if (net < 0n) lost++;
    }
    return {
      address: (this.state.world.wallets[walletIndex] as { address: string }).address,
      cash_paid_micro: book.cashPaid,
      cash_received_micro: book.cashReceived,
      fees_micro: book.fees,
      transfer_out_cost_micro: book.transferOutCost,
      transfer_in_cost_micro: book.transferInCost,
      transfers_out: book.transfersOut,
      transfers_in: book.transfersIn,
      amm_trades: book.ammTrades,
      conversions: book.conversions,
      realized_micro: realized,
      cost_basis_micro: costBasis,
      volume_micro: book.volume,
      trades: book.trades,
      markets_traded: [...book.flows.values()].filter((flows) => flows.traded).length,
      won,
      lost,
      realized_by_day: [...book.realizedByDay.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([date, amount]) => ({ date, realized_micro: amount })),
      tokens,
      markets: [...perMarket.values()],
      first_trade_at: book.firstTrade,
      last_trade_at: book.lastTrade,
    };
  }

  /** Payout per share of each outcome once the market resolved on chain by `throughSecond`. */
  private payout(market: SimMarket, throughSecond: number): [bigint, bigint] | null {
    const at = this.resolvedAt.get(market.index);
    if (at === undefined || at > throughSecond) return null;
    if (market.voided) return [UNIT / 2n, UNIT / 2n];
    return market.winningOutcome === 0 ? [UNIT, 0n] : [0n, UNIT];
  }

  private market(index: number): SimMarket {
    return this.state.world.markets[index] as SimMarket;
  }

  /** Indexes journal entries added since the last call (all again if one was inserted before them). */
  private index(): void {
    const { entries } = this.state.journal;
    if (this.indexed > 0 && entries[this.indexed - 1] !== this.lastIndexed) {
      this.byWallet = [];
      this.resolvedAt.clear();
      this.transferCosts.clear();
      this.indexed = 0;
    }
    const add = (walletIndex: number, entry: JournalEntry) => {
      if (walletIndex < 0) return;
      const list = this.byWallet[walletIndex];
      if (list) list.push(entry);
      else this.byWallet[walletIndex] = [entry];
    };
    for (; this.indexed < entries.length; this.indexed++) {
      const entry = entries[this.indexed] as JournalEntry;
      if (entry.kind === 'trade') {
        add(entry.trade.walletIndex, entry);
        if (entry.trade.makerWalletIndex !== entry.trade.walletIndex) add(entry.trade.makerWalletIndex, entry);
      } else if (entry.kind === 'activity') add(entry.activity.walletIndex, entry);
      else if (entry.kind === 'transfer') {
        add(entry.transfer.fromWalletIndex, entry);
        add(entry.transfer.toWalletIndex, entry);
      } else if (entry.kind === 'conversion') add(entry.conversion.walletIndex, entry);
      else if (entry.kind === 'resolution') this.resolvedAt.set(entry.marketIndex, entry.second);
    }
    this.lastIndexed = entries[this.indexed - 1];
  }
}
