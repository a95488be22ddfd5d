/**
 * The simulator's moving parts: the trade tape, wallet ledger, market closures and the simulated
 * clock. Pure (no I/O): the HTTP layer only reads from it and calls sync()/advance().
 *
 * Time is generated in whole seconds, in order, and only once a second is complete; each second (or
 * history minute) draws from its own named random stream. So the tape is a function of (seed, clock)
 * alone: the same however often ticks run or how advance() calls are split. A market closes (and, if
 * it resolves, settles merges/redemptions) exactly when generation reaches its end date, after all
 * trades before it.
 */

import { keccak256, toHex } from 'viem';
import { createRng, cumulativeWeights, type Rng } from './prng.js';
import { buildWorld } from './world.js';
import { PricePaths, type Quote } from './price-paths.js';
import { Ledger, tokenKey, type ActivityStamp, type NegRiskConversion } from './ledger.js';
import { conversionAmounts, indexSetOf, type NegRiskPlan, planNegRisk } from './neg-risk.js';
import { ammFillAmounts, type FillAmounts, fillAmounts, micro, MICRO_PER_UNIT, type Side } from './fill-amounts.js';
import { planTrade, type SimTrade, type TradeContext, type TradePlan } from './trades.js';
import { TradeTape } from './tape.js';
import { applyScenarios, burstTradesInSecond, type ScenarioMarkets, type SimScenarios, type TradeBurst } from './scenarios.js';
import { ChainJournal } from './chain-journal.js';
import type { SimEvent, SimMarket, SimSeries, SimWallet, World } from './world-types.js';

// Math functions bound once: inside Jest's vm sandbox every global lookup (Math, Infinity) is slow.
const { floor, max, min } = Math;

export interface SimulatorStateOptions {
  seed?: number;
  /** Default 300. */
  marketCount?: number;
  /** Default 200. */
  walletCount?: number;
  /** Default 48. */
  historyHours?: number;
  /** Default 30,000, spread over the history window. */
  historicTrades?: number;
  /** Live trades per simulated second; default 3. */
  tradesPerSecond?: number;
  /** Epoch ms; default Date.now. Same seed + same clock => same world and history. */
  clock?: () => number;
  /**
   * When the world starts (epoch ms); default: the clock at construction. A restarted simulator
   * given the same epoch rebuilds the same world and tape and catches up to the clock, so a demo
   * that restarts sees one continuous upstream instead of a second, different history.
   */
  epochMs?: number;
  /** Old, long-closed markets added to the catalog (no trades); default none. */
  historicalMarkets?: number;
  /** Late resolutions, voids and trade bursts layered on the world. */
  scenarios?: SimScenarios;
  /** Epoch ms from which trades settle on the v2 exchanges; default: the middle of the generated history. */
  v2FromMs?: number;
  /**
   * Wallets move shares to other wallets by ERC-1155 transfer (some of what they just bought, sometimes
   * with other positions in one TransferBatch); default off (`SIM_TRANSFERS`): the default world, which
   * other tests are built on, stays without them; the verify e2e turns them on.
   */
  transfers?: boolean;
  /**
   * Neg-risk conversions (neg-risk.ts): the NegRiskAdapter prepares the neg-risk events' questions on
   * chain and wallets convert NO positions into YES and collateral; default off (`SIM_CONVERSIONS`), so
   * the default world (its condition ids included) stays the same; the verify e2e turns them on.
   */
  conversions?: boolean;
  /**
   * With conversions on, some convert every question's NO (no YES minted; `SIM_CONVERSIONS=all`, which
   * the verify e2e runs). Off by default, so `SIM_CONVERSIONS=1` worlds stay as they were.
   */
  conversionsOfEveryQuestion?: boolean;
  /**
   * Markets that trade against a legacy AMM (FixedProductMarketMaker) instead of the order book: the
   * oldest this many open binary markets get a pool (Gamma `marketMakerAddress`), and their trades settle
   * as FPMMBuy/FPMMSell with the pool as the only counterparty. Default 0 (`SIM_AMM_MARKETS`), so the
   * default world stays the same; the verify e2e turns some on.
   */
  ammMarkets?: number;
}

export interface MarketStatus {
  closed: boolean;
  resolved: boolean;
  closedAtMs: number | null;
}

export interface TokenRef {
  marketIndex: number;
  outcomeIndex: 0 | 1;
}

const DEFAULT_STATE_OPTIONS = {
  seed: 42,
  marketCount: 300,
  walletCount: 200,
  historyHours: 48,
  // ~0.17 trades/s over 48 h: enough for candles and wallet stats, small enough to start in well under 1 s.
  historicTrades: 30_000,
  tradesPerSecond: 3,
} as const;

const DAY_MS = 86_400_000;
const HISTORY_BUCKET_SECONDS = 60;
/** Share of wallets that merge both outcomes back to USDC at close, and that redeem winnings at once. */
const MERGE_CHANCE = 0.8;
const REDEEM_CHANCE = 0.75;
/** With transfers on: share of taker buys followed by a transfer, of those that send everything, and that batch. */
const TRANSFER_CHANCE = 0.03;
const TRANSFER_ALL_CHANCE = 0.35;
const TRANSFER_BATCH_CHANCE = 0.3;
/** With conversions on: share of taker NO buys in a neg-risk event followed by a conversion, and at most how many NO positions it converts. */
const CONVERSION_CHANCE = 0.2;
const CONVERSION_MAX_K = 4;

export class SimulatorState {
  readonly seed: number;
  readonly world: World;
  readonly paths: PricePaths;
  readonly ledger: Ledger;
  readonly tape: TradeTape;
  /** Every taker fill, oldest first (generation order; timestamps never decrease). */
  readonly trades: readonly SimTrade[];
  readonly status: MarketStatus[];
  readonly tradesPerSecond: number;
  /** Which markets play which scenario (empty lists when none were asked for). */
  readonly scenarioMarkets: ScenarioMarkets;
  private readonly bursts: readonly TradeBurst[];
  /** What the simulated chain settles, second by second (simulator/chain-*.ts serve it over JSON-RPC). */
  readonly journal = new ChainJournal();

  readonly marketById = new Map<string, SimMarket>();
  readonly marketBySlug = new Map<string, SimMarket>();
  readonly marketByConditionId = new Map<string, SimMarket>();
  readonly tokenById = new Map<string, TokenRef>();
  readonly eventById = new Map<string, SimEvent>();
  readonly eventBySlug = new Map<string, SimEvent>();
  readonly seriesById = new Map<string, SimSeries>();
  readonly walletByAddress = new Map<string, SimWallet>();

  private readonly clock: () => number;
  private offsetMs = 0;
  private nextSecond: number;
  private readonly closureQueue: SimMarket[];
  private closureCursor = 0;
  private readonly tradeContext: TradeContext;
  private readonly makerWallets: number[];
  /** Epoch ms from which trades settle on the v2 exchanges (their fees differ from v1's). */
  readonly v2FromMs: number;
  /** With transfers on: per market, the wallets (not market makers) it is a favourite of, which receive its shares. */
  private readonly transferReceivers: number[][] | null;
  /** With conversions on: the neg-risk events the adapter prepares, and per market its event's plan and question index. */
  readonly negRiskPlans: readonly NegRiskPlan[];
  private readonly conversionsOfEveryQuestion: boolean;
  /** Market index -> its legacy AMM's address (`ammMarkets`). */
  private readonly ammPools: ReadonlyMap<number, string>;
  private readonly questionOf = new Map<number, { plan: NegRiskPlan; index: number }>();
  /** Question preparations still to put on the chain, by second. */
  private readonly pendingPreparations: Array<{ second: number; plan: NegRiskPlan; index: number }> = [];

  constructor(options: SimulatorStateOptions = {}) {
    const settings = { ...DEFAULT_STATE_OPTIONS, ...definedOnly(options) };
    this.seed = settings.seed;
    this.clock = options.clock ?? Date.now;
    this.tradesPerSecond = settings.tradesPerSecond;
    const startMs = options.epochMs ?? this.clock();

    this.world = buildWorld({
      seed: settings.seed,
      marketCount: settings.marketCount,
      walletCount: settings.walletCount,
      historyHours: settings.historyHours,
      nowMs: startMs,
      historicalMarkets: options.historicalMarkets,
    });
    this.v2FromMs = options.v2FromMs ?? (this.world.originMs + this.world.generatedAtMs) / 2;
    this.scenarioMarkets = applyScenarios(this.world, options.scenarios ?? {}, startMs);
    this.bursts = options.scenarios?.bursts ?? [];
    this.negRiskPlans = options.conversions ? planNegRisk(this.world, this.seed) : [];
    this.conversionsOfEveryQuestion = options.conversionsOfEveryQuestion ?? false;
    this.ammPools = ammPools(this.world, this.seed, options.ammMarkets ?? 0, startMs);
    const { markets, wallets } = this.world;
    this.paths = new PricePaths(this.seed, markets, this.world.originMs);
    this.ledger = new Ledger(wallets.length);
    this.status = markets.map(() => ({ closed: false, resolved: false, closedAtMs: null }));
    this.tape = new TradeTape(markets.length);
    this.trades = this.tape.trades;
    this.closureQueue = markets
      .filter((market) => market.closesAtMs !== null)
      .sort((a, b) => (a.closesAtMs as number) - (b.closesAtMs as number) || a.index - b.index);
    this.makerWallets = wallets.filter((wallet) => wallet.behaviour === 'market-maker').map((wallet) => wallet.index);
    this.transferReceivers = options.transfers ? favouredBy(markets.length, wallets) : null;
    this.indexLookups();
    this.prepareNegRisk();

    this.tradeContext = {
      markets,
      wallets,
      paths: this.paths,
      ledger: this.ledger,
      walletCumulative: wallets.some((wallet) => wallet.takerWeight > 0)
        ? cumulativeWeights(wallets.map((wallet) => wallet.takerWeight))
        : [],
      marketCumulative: markets.some((market) => market.popularity > 0)
        ? cumulativeWeights(markets.map((market) => market.popularity))
        : [],
      isTradable: (marketIndex, ms) => this.isTradable(marketIndex, ms),
    };

    const originSecond = this.world.originMs / 1000;
    const startSecond = floor(startMs / 1000);
    this.nextSecond = startSecond;
    const historySeconds = max(1, startSecond - originSecond);
    const historicRate = settings.historicTrades / historySeconds;
    for (let bucket = originSecond; bucket < startSecond; bucket += HISTORY_BUCKET_SECONDS) {
      const end = min(bucket + HISTORY_BUCKET_SECONDS, startSecond);
      this.generateSeconds(bucket, end, historicRate, createRng(this.seed, 'history', bucket));
    }
    this.closeMarketsUpTo(startSecond * 1000);
  }

  /** The last second whose trades and closures are all generated (the simulated chain's head block). */
  get generatedThroughSecond(): number {
    return this.nextSecond - 1;
  }

  /** Simulated now: the injected clock plus everything advance() added. */
  nowMs(): number {
    return this.clock() + this.offsetMs;
  }

  /** Move simulated time forward and generate everything in between, immediately. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('advance(ms) needs a non-negative number');
    this.offsetMs += ms;
    this.sync();
  }

  /** Generate live trades and closures for every second completed since the last call. */
  sync(): void {
    const completeUntil = floor(this.nowMs() / 1000);
    for (; this.nextSecond < completeUntil; this.nextSecond++) {
      this.generateSeconds(this.nextSecond, this.nextSecond + 1, this.tradesPerSecond, createRng(this.seed, 'live', this.nextSecond));
      for (const { burst, count } of burstTradesInSecond(this.bursts, this.nextSecond)) {
        this.generateCount(this.nextSecond, count, createRng(this.seed, 'burst', burst * 1e10 + this.nextSecond));
      }
    }
    this.closeMarketsUpTo(this.nextSecond * 1000);
  }

  isTradable(marketIndex: number, ms: number): boolean {
    const market = this.world.markets[marketIndex];
    if (!market || market.placeholder || ms < market.acceptingOrdersFromMs) return false;
    return market.closesAtMs === null || ms < market.closesAtMs;
  }

  /** Accepting orders now (open, not a placeholder, past its listing). */
  isAcceptingOrders(marketIndex: number): boolean {
    return !this.status[marketIndex]?.closed && this.isTradable(marketIndex, this.nowMs());
  }

  tradesOfMarket(marketIndex: number): readonly number[] {
    return this.tape.tradesOfMarket(marketIndex);
  }

  lastTrade(marketIndex: number): SimTrade | undefined {
    return this.tape.lastTrade(marketIndex);
  }

  /** Sum of size x price of taker fills with fromMs <= timestamp < toMs. */
  volumeBetween(marketIndex: number, fromMs: number, toMs?: number): number {
    return this.tape.volumeBetween(marketIndex, fromMs, toMs);
  }

  /** Rolling [now - 24 h, now) window, as Gamma's volume24hr. */
  volume24hr(marketIndex: number): number {
    return this.tape.volumeBetween(marketIndex, this.nowMs() - DAY_MS);
  }

  totalVolume(marketIndex: number): number {
    return this.tape.totalVolume(marketIndex);
  }

  /** The YES quote now, or frozen at the moment trading stopped. */
  quote(marketIndex: number): Quote {
    const market = this.world.markets[marketIndex] as SimMarket;
    const closedAt = this.status[marketIndex]?.closedAtMs;
    return this.paths.quoteAt(market, closedAt != null ? closedAt - 1 : this.nowMs());
  }

  /** Price of one outcome now: the payout once resolved, else the YES mid mirrored for NO. */
  outcomePrice(marketIndex: number, outcomeIndex: 0 | 1): number {
    const market = this.world.markets[marketIndex] as SimMarket;
    if (this.status[marketIndex]?.resolved) return market.voided ? 0.5 : market.winningOutcome === outcomeIndex ? 1 : 0;
    const quote = this.quote(marketIndex);
    const yesMid = (quote.bidTicks + quote.askTicks) / (2 * quote.ticksPerUnit);
    return outcomeIndex === 0 ? yesMid : 1 - yesMid;
  }

  /**
   * Collateral locked, in USDC: max(YES held, NO held) over every wallet, makers included (they split
   * before selling what they lack, so this is the complete sets outstanding); after resolution only unredeemed
   * winning shares still lock collateral.
   */
  openInterest(marketIndex: number): number {
    const market = this.world.markets[marketIndex] as SimMarket;
    let yes = 0n;
    let no = 0n;
    for (const wallet of this.world.wallets) {
      yes += this.ledger.heldMicro(wallet.index, tokenKey(marketIndex, 0));
      no += this.ledger.heldMicro(wallet.index, tokenKey(marketIndex, 1));
    }
    let locked = yes > no ? yes : no;
    if (this.status[marketIndex]?.resolved) locked = market.voided ? (yes + no) / 2n : market.winningOutcome === 0 ? yes : no;
    return Number(locked) / 1e6;
  }

  private generateSeconds(startSecond: number, endSecond: number, ratePerSecond: number, rng: Rng): void {
    const count = rng.poisson(ratePerSecond * (endSecond - startSecond));
    const seconds: number[] = [];
    for (let i = 0; i < count; i++) seconds.push(rng.int(startSecond, endSecond - 1));
    seconds.sort((a, b) => a - b);
    for (const second of seconds) {
      this.closeMarketsUpTo(second * 1000);
      const plan = planTrade(this.tradeContext, rng, second * 1000);
      if (plan) this.record(plan, second, rng);
    }
    this.closeMarketsUpTo(endSecond * 1000);
  }

  /** Exactly `count` fills (when markets are tradable) within one second: a burst. */
  private generateCount(second: number, count: number, rng: Rng): void {
    for (let i = 0; i < count; i++) {
      const plan = planTrade(this.tradeContext, rng, second * 1000);
      if (plan) this.record(plan, second, rng);
    }
  }

  /** The market's legacy AMM (FixedProductMarketMaker) address, or null for an order-book market. */
  ammPool(marketIndex: number): string | null {
    return this.ammPools.get(marketIndex) ?? null;
  }

  /** What a planned trade moves: the AMM's amounts on a pool's market, else the exchange's of its time (SimTransactions.tradeAmounts for the chain's). */
  private tradeAmounts(trade: { marketIndex: number; size: number; price: number; side: Side }, second: number): FillAmounts {
    return this.ammPools.has(trade.marketIndex) ? ammFillAmounts(trade) : fillAmounts(trade, second * 1000 >= this.v2FromMs);
  }

  private record(plan: TradePlan, second: number, rng: Rng): void {
    if (plan.splitShares > 0) {
      const activity = this.ledger.split(plan.walletIndex, plan.marketIndex, micro(plan.splitShares), this.stamp(second, rng));
      this.journal.append({ kind: 'activity', second, activity });
    }
    const drawnMaker = this.makerWallets.length > 0 ? rng.pick(this.makerWallets) : -1;
    // A pool's market trades against the pool alone (the maker is still drawn, so the stream of draws is the same).
    const makerWalletIndex = this.ammPools.has(plan.marketIndex) ? -1 : drawnMaker;
    const token = tokenKey(plan.marketIndex, plan.outcomeIndex);
    // The chain's amounts of this fill: what every balance below moves by.
    const { shares, usdc, takerFee, takerFeeAsset } = this.tradeAmounts(plan, second);
    if (makerWalletIndex >= 0 && plan.side === 'BUY') this.coverMakerSell(makerWalletIndex, token, plan.marketIndex, shares, second);
    const trade = this.tape.append({
      walletIndex: plan.walletIndex,
      makerWalletIndex,
      marketIndex: plan.marketIndex,
      outcomeIndex: plan.outcomeIndex,
      side: plan.side,
      size: plan.size,
      price: plan.price,
      timestamp: second,
      transactionHash: `0x${rng.hex(64)}`,
    });
    this.journal.append({ kind: 'trade', second, trade });
    // A v1 buy's fee is taken out of the shares it receives; every other fee out of the collateral.
    if (plan.side === 'BUY') this.ledger.buy(plan.walletIndex, token, takerFeeAsset === 'shares' ? shares - takerFee : shares, usdc);
    else this.ledger.sell(plan.walletIndex, token, shares, usdc - takerFee);
    // The resting order is on the other side: the maker sells what the taker buys, and buys what it sells.
    if (makerWalletIndex >= 0) {
      if (plan.side === 'BUY') this.ledger.sell(makerWalletIndex, token, shares, usdc);
      else this.ledger.buy(makerWalletIndex, token, shares, usdc);
    }
    if (this.transferReceivers && plan.side === 'BUY') this.maybeTransfer(plan.walletIndex, token, second);
    if (this.negRiskPlans.length > 0 && plan.side === 'BUY' && plan.outcomeIndex === 1)
      this.maybeConvert(plan.walletIndex, plan.marketIndex, second);
  }

  /**
   * After a buy, now and then the buyer sends some or all of that position to another wallet (one that
   * trades the market, so it may sell what it received; else any trader), sometimes in one batch with
   * up to two more of its open positions. A stream of its own per tape position: with transfers off
   * nothing is drawn and the world is the same.
   */
  private maybeTransfer(walletIndex: number, token: number, second: number): void {
    const rng = createRng(this.seed, 'transfer', this.trades.length);
    if (!rng.chance(TRANSFER_CHANCE)) return;
    const marketIndex = floor(token / 2);
    const candidates = (this.transferReceivers?.[marketIndex] ?? []).filter((index) => index !== walletIndex);
    const traders = this.world.wallets.filter((w) => w.behaviour !== 'market-maker' && w.index !== walletIndex);
    const receiver = candidates.length > 0 ? rng.pick(candidates) : traders.length > 0 ? rng.pick(traders).index : -1;
    if (receiver < 0) return;
    const part = (held: bigint) => (rng.chance(TRANSFER_ALL_CHANCE) ? held : (held * BigInt(rng.int(100, 900))) / 1000n);
    const tokens = [token];
    const batch = rng.chance(TRANSFER_BATCH_CHANCE);
    if (batch) {
      for (const [other, holding] of this.ledger.holdingsOf(walletIndex)) {
        if (tokens.length >= 3) break;
        if (other !== token && holding.shares > 0n && rng.chance(0.5) && this.isTradable(floor(other / 2), second * 1000))
          tokens.push(other);
      }
    }
    const legs = tokens
      .map((key) => ({
        marketIndex: floor(key / 2),
        outcomeIndex: (key % 2) as 0 | 1,
        shares: part(this.ledger.heldMicro(walletIndex, key)),
      }))
      .filter((leg) => leg.shares > 0n);
    if (legs.length === 0) return;
    for (const leg of legs) this.ledger.transfer(walletIndex, receiver, tokenKey(leg.marketIndex, leg.outcomeIndex), leg.shares);
    const transfer = {
      fromWalletIndex: walletIndex,
      toWalletIndex: receiver,
      legs,
      batch: batch || legs.length > 1,
      timestamp: second,
      transactionHash: `0x${rng.hex(64)}`,
    };
    this.journal.append({ kind: 'transfer', second, transfer });
  }

  /**
   * On chain a resting sell can only fill from shares its owner holds, so a maker short of them splits
   * collateral first (whole shares, as sellers do), in its own transaction just before the match. Its
   * stamp draws from a stream of its own, so the takers' tape is the same with or without it.
   */
  private coverMakerSell(makerWalletIndex: number, token: number, marketIndex: number, shares: bigint, second: number): void {
    const short = shares - this.ledger.heldMicro(makerWalletIndex, token);
    if (short <= 0n) return;
    const rng = createRng(this.seed, 'maker-split', this.trades.length);
    const whole = ((short + MICRO_PER_UNIT - 1n) / MICRO_PER_UNIT) * MICRO_PER_UNIT;
    const activity = this.ledger.split(makerWalletIndex, marketIndex, whole, this.stamp(second, rng));
    this.journal.append({ kind: 'activity', second, activity });
  }

  /** The adapter prepares each planned market and its first questions at the world's start, the late ones when their second comes. */
  private prepareNegRisk(): void {
    for (const plan of this.negRiskPlans) {
      const first = plan.preparedAtSecond[0] as number;
      const now = plan.preparedAtSecond.flatMap((second, index) => (second === first ? [index] : []));
      this.journal.append({ kind: 'neg-risk-prepare', second: first, plan, market: true, questions: now });
      plan.preparedAtSecond.forEach((second, index) => {
        this.questionOf.set(plan.marketIndexes[index] as number, { plan, index });
        if (second !== first) this.pendingPreparations.push({ second, plan, index });
      });
    }
    this.pendingPreparations.sort((a, b) => a.second - b.second || a.plan.eventIndex - b.plan.eventIndex);
  }

  private prepareQuestionsUpTo(ms: number): void {
    while (this.pendingPreparations.length > 0 && (this.pendingPreparations[0]?.second as number) * 1000 <= ms) {
      const { second, plan, index } = this.pendingPreparations.shift() as (typeof this.pendingPreparations)[number];
      this.journal.append({ kind: 'neg-risk-prepare', second, plan, market: false, questions: [index] });
    }
  }

  /**
   * After a taker's NO buy in a prepared neg-risk event, now and then the buyer converts: part of that
   * NO position with the NO of up to three more questions of the event (splitting collateral first for
   * any it holds less of), into YES of the event's other questions prepared by then and collateral. A
   * stream of its own per tape position: with conversions off nothing is drawn.
   */
  private maybeConvert(walletIndex: number, marketIndex: number, second: number): void {
    const question = this.questionOf.get(marketIndex);
    if (!question) return;
    const rng = createRng(this.seed, 'conversion', this.trades.length);
    if (!rng.chance(CONVERSION_CHANCE)) return;
    const { plan } = question;
    const prepared = plan.marketIndexes.filter((_, index) => (plan.preparedAtSecond[index] as number) <= second);
    // Every question still open: a conversion mints YES of the others.
    if (prepared.some((m) => !this.isOpenAt(m, second * 1000))) return;
    const held = this.ledger.heldMicro(walletIndex, tokenKey(marketIndex, 1));
    const amount = (held * BigInt(rng.int(300, 1000))) / 1000n;
    if (amount <= 0n) return;
    // The adapter converts only in an event of two questions or more (NoConvertiblePositions); k is
    // every question (no YES minted) only when asked for.
    if (prepared.length < 2) return;
    const most = this.conversionsOfEveryQuestion ? prepared.length : prepared.length - 1;
    const k = rng.int(1, min(CONVERSION_MAX_K, most));
    const others = prepared.filter((m) => m !== marketIndex);
    const converted = [marketIndex];
    while (converted.length < k) converted.push(others.splice(rng.int(0, others.length - 1), 1)[0] as number);
    const indexOf = (m: number) => (this.questionOf.get(m) as { index: number }).index;
    const noMarkets = converted.sort((a, b) => indexOf(a) - indexOf(b));
    for (const m of noMarkets) {
      const short = amount - this.ledger.heldMicro(walletIndex, tokenKey(m, 1));
      if (short > 0n)
        this.journal.append({ kind: 'activity', second, activity: this.ledger.split(walletIndex, m, short, this.stamp(second, rng)) });
    }
    const yesMarkets = prepared.filter((m) => !noMarkets.includes(m)).sort((a, b) => indexOf(a) - indexOf(b));
    const amounts = conversionAmounts(amount, noMarkets.length, plan.feeBips);
    const conversion: NegRiskConversion = {
      walletIndex,
      eventIndex: plan.eventIndex,
      negRiskMarketId: plan.marketId,
      feeBips: plan.feeBips,
      indexSet: indexSetOf(noMarkets.map(indexOf)),
      noMarkets,
      yesMarkets,
      amount,
      fee: amounts.fee,
      yesOut: amounts.yesOut,
      collateralOut: amounts.collateralOut,
      timestamp: second,
      transactionHash: `0x${rng.hex(64)}`,
    };
    this.ledger.convert(conversion);
    this.journal.append({ kind: 'conversion', second, conversion });
  }

  private isOpenAt(marketIndex: number, ms: number): boolean {
    const closesAt = this.world.markets[marketIndex]?.closesAtMs;
    return closesAt === null || closesAt === undefined || ms < closesAt;
  }

  private closeMarketsUpTo(ms: number): void {
    this.prepareQuestionsUpTo(ms);
    while (this.closureCursor < this.closureQueue.length) {
      const market = this.closureQueue[this.closureCursor] as SimMarket;
      if ((market.closesAtMs as number) > ms) return;
      this.closureCursor++;
      this.close(market);
    }
  }

  private close(market: SimMarket): void {
    const closedAtMs = market.closesAtMs as number;
    this.status[market.index] = { closed: true, resolved: market.resolvesOnClose, closedAtMs };
    if (!market.resolvesOnClose) return;
    this.journal.append({ kind: 'resolution', second: floor(closedAtMs / 1000), marketIndex: market.index });
    // Markets that closed before the generated history have no holders to settle.
    if (closedAtMs >= this.world.originMs) this.settle(market, floor(closedAtMs / 1000));
  }

  /** At resolution most holders merge complete sets and redeem winnings (both sides at 0.5 after a void); the rest stay redeemable. */
  private settle(market: SimMarket, second: number): void {
    const rng = createRng(this.seed, 'settle', market.index);
    const yes = tokenKey(market.index, 0);
    const no = tokenKey(market.index, 1);
    if (market.voided) {
      for (const wallet of this.world.wallets) {
        if (wallet.behaviour === 'market-maker') continue;
        const held = this.ledger.heldMicro(wallet.index, yes) + this.ledger.heldMicro(wallet.index, no);
        if (held > 0n && rng.chance(REDEEM_CHANCE)) {
          const activity = this.ledger.redeemVoid(wallet.index, market.index, this.stamp(second, rng));
          this.journal.append({ kind: 'activity', second, activity });
        }
      }
      this.settleMakers(market, second);
      return;
    }
    for (const wallet of this.world.wallets) {
      if (wallet.behaviour === 'market-maker') continue;
      const both = minMicro(this.ledger.heldMicro(wallet.index, yes), this.ledger.heldMicro(wallet.index, no));
      if (both > 0n && rng.chance(MERGE_CHANCE)) {
        const activity = this.ledger.merge(wallet.index, market.index, both, this.stamp(second, rng));
        this.journal.append({ kind: 'activity', second, activity });
      }
      const winning = this.ledger.heldMicro(wallet.index, tokenKey(market.index, market.winningOutcome));
      if (winning > 0n && rng.chance(REDEEM_CHANCE)) {
        const activity = this.ledger.redeem(wallet.index, market.index, market.winningOutcome, this.stamp(second, rng));
        this.journal.append({ kind: 'activity', second, activity });
      }
    }
    this.settleMakers(market, second);
  }

  /**
   * Market makers wind their inventory down at resolution: merge complete sets, redeem the rest. They
   * settle after the takers from a stream of their own, so the takers' settlements are the same as
   * before makers held inventory.
   */
  private settleMakers(market: SimMarket, second: number): void {
    const rng = createRng(this.seed, 'settle-makers', market.index);
    const yes = tokenKey(market.index, 0);
    const no = tokenKey(market.index, 1);
    for (const maker of this.makerWallets) {
      if (market.voided) {
        if (this.ledger.heldMicro(maker, yes) + this.ledger.heldMicro(maker, no) > 0n) {
          this.journal.append({ kind: 'activity', second, activity: this.ledger.redeemVoid(maker, market.index, this.stamp(second, rng)) });
        }
        continue;
      }
      const both = minMicro(this.ledger.heldMicro(maker, yes), this.ledger.heldMicro(maker, no));
      if (both > 0n) {
        this.journal.append({ kind: 'activity', second, activity: this.ledger.merge(maker, market.index, both, this.stamp(second, rng)) });
      }
      if (this.ledger.heldMicro(maker, tokenKey(market.index, market.winningOutcome)) > 0n) {
        const activity = this.ledger.redeem(maker, market.index, market.winningOutcome, this.stamp(second, rng));
        this.journal.append({ kind: 'activity', second, activity });
      }
    }
  }

  private stamp(second: number, rng: Rng): ActivityStamp {
    return { timestamp: second, transactionHash: `0x${rng.hex(64)}`, tradesBefore: this.trades.length };
  }

  private indexLookups(): void {
    for (const market of this.world.markets) {
      this.marketById.set(market.id, market);
      this.marketBySlug.set(market.slug, market);
      this.marketByConditionId.set(market.conditionId, market);
      for (const [outcomeIndex, token] of market.tokenIds.entries()) {
        this.tokenById.set(token, { marketIndex: market.index, outcomeIndex: outcomeIndex as 0 | 1 });
      }
    }
    for (const event of this.world.events) {
      this.eventById.set(event.id, event);
      this.eventBySlug.set(event.slug, event);
    }
    for (const series of this.world.series) this.seriesById.set(series.id, series);
    for (const wallet of this.world.wallets) this.walletByAddress.set(wallet.address, wallet);
  }
}

const minMicro = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** Per market, the traders (not market makers) whose favourites include it. */
function favouredBy(marketCount: number, wallets: readonly SimWallet[]): number[][] {
  const byMarket: number[][] = Array.from({ length: marketCount }, () => []);
  for (const wallet of wallets) {
    if (wallet.behaviour === 'market-maker') continue;
    for (const market of wallet.favouriteMarkets) byMarket[market]?.push(wallet.index);
  }
  return byMarket;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * The markets given a legacy AMM: the `count` oldest (by creation) binary markets of non-neg-risk events
 * that trade and are still open at the world's start (so the first market poll lists them), each with a
 * pool address derived from the seed and the market.
 */
function ammPools(world: World, seed: number, count: number, startMs: number): Map<number, string> {
  if (count <= 0) return new Map();
  const open = (m: SimMarket) => m.closesAtMs === null || m.closesAtMs > startMs;
  const candidates = world.markets
    .filter((m) => !m.placeholder && open(m) && m.popularity > 0 && !(world.events[m.eventIndex]?.negRisk ?? false))
    .sort((a, b) => a.createdAtMicros - b.createdAtMicros || a.index - b.index)
    .slice(0, count);
  return new Map(candidates.map((m) => [m.index, `0x${keccak256(toHex(`fpmm:${seed}:${m.index}`)).slice(-40)}`]));
}
