/**
 * The backtest simulation (pure, deterministic, exact): triggers in time order become orders filled
 * by execution.ts against a cash account; markets that resolve inside the range pay their payouts;
 * the equity curve is valued at every UTC day's end. Same inputs, same output, byte for byte: every
 * ordering is total (time, then a sequence number fixed by the plan), every amount an integer.
 *
 * Definitions (docs/COPY.md):
 * - equity = cash + held shares x mark; mark = the payout once the market resolved, else the day's
 *   closing price of the outcome (binary: 1 - the YES close for the other outcome), else the last
 *   price we traded it at.
 * - total_return_pct = 100 x (final equity - starting cash) / starting cash.
 * - max_drawdown_pct = the largest fall from a running peak of the curve (starting cash included),
 *   as a percentage of that peak.
 * - win rate: over closed positions (a token held from zero back to zero, by sells or a resolution):
 *   won when proceeds + payout - cost - fees > 0. Positions still open at the end are not counted.
 * - a buy the cash cannot pay (notional plus fee) is skipped (`insufficient_cash`), as an exchange
 *   would refuse it; a sell is clipped to what is held and skipped when nothing is (`no_position`).
 */
import type { FeeSchedule } from '../../fees/taker-fee.js';
import { divide, MICRO, minBig, mulDiv } from '../../shared/decimal.js';
import { DAY_MS } from '../../shared/time.js';
import { type BookAt, type Execution, execute } from './execution.js';

export interface MarketTerms {
  marketId: string;
  title: string;
  category: string;
  outcomes: string[];
  tokenIds: string[];
  yesIndex: number;
  fee: FeeSchedule;
  /** When it settled and what each outcome paid (micro-USDC per share); null while open. */
  resolution: { atMs: number; payoutsMicros: bigint[] } | null;
}

type Want = { kind: 'buy'; notionalMicros: bigint } | { kind: 'sell'; notionalMicros: bigint } | { kind: 'sell_all' };

export interface Trigger {
  /** When the follower acts (the signal's time plus the strategy's delay). */
  atMs: number;
  seq: number;
  marketId: string;
  outcomeIndex: number;
  referenceMicros: bigint;
  /** What caused it: the leader's trade id, the trade that completed a move, `entry`, `exit`. */
  ref: string;
  want: Want;
}

export interface BacktestInputs {
  fromMs: number;
  toMs: number;
  startingCashMicros: bigint;
  triggers: Trigger[];
  markets: Map<string, MarketTerms>;
  /** The book of each trigger's token at its time (key: trigger seq), where history has one. */
  books: Map<number, BookAt>;
  /** Closing YES price per market and UTC day start. */
  closes: Map<string, Map<number, bigint>>;
}

interface SimTrade {
  seq: number;
  atMs: number;
  marketId: string;
  assetId: string;
  outcome: string;
  side: 'buy' | 'sell';
  ref: string;
  referenceMicros: bigint;
  execution: Execution;
}

interface Skipped {
  atMs: number;
  marketId: string;
  ref: string;
  reason: 'insufficient_cash' | 'no_position' | 'no_liquidity' | 'unknown_market';
}

interface CurvePoint {
  dayMs: number;
  cashMicros: bigint;
  positionsMicros: bigint;
  equityMicros: bigint;
}

interface Settlement {
  atMs: number;
  marketId: string;
  assetId: string;
  sharesMicros: bigint;
  payoutMicros: bigint;
}

export interface SimResult {
  trades: SimTrade[];
  skipped: Skipped[];
  settlements: Settlement[];
  curve: CurvePoint[];
  finalEquityMicros: bigint;
  feesMicros: bigint;
  slippageMicros: bigint;
  volumeMicros: bigint;
  won: number;
  lost: number;
  maxDrawdownPpm: bigint;
}

interface Holding {
  marketId: string;
  outcomeIndex: number;
  shares: bigint;
  /** Cost and proceeds of the current episode (from zero to zero), fees included. */
  costMicros: bigint;
  proceedsMicros: bigint;
  lastPriceMicros: bigint;
}

export function simulate(inputs: BacktestInputs): SimResult {
  const triggers = [...inputs.triggers]
    .filter((t) => t.atMs >= inputs.fromMs && t.atMs < inputs.toMs)
    .sort((a, b) => a.atMs - b.atMs || a.seq - b.seq);
  const resolutions = [...inputs.markets.values()]
    .filter((m) => m.resolution !== null && m.resolution.atMs < inputs.toMs)
    .sort((a, b) => a.resolution!.atMs - b.resolution!.atMs || (a.marketId < b.marketId ? -1 : 1));
  let cash = inputs.startingCashMicros;
  const holdings = new Map<string, Holding>();
  const result: SimResult = {
    trades: [],
    skipped: [],
    settlements: [],
    curve: [],
    finalEquityMicros: 0n,
    feesMicros: 0n,
    slippageMicros: 0n,
    volumeMicros: 0n,
    won: 0,
    lost: 0,
    maxDrawdownPpm: 0n,
  };
  const closeEpisode = (holding: Holding) => {
    if (holding.proceedsMicros - holding.costMicros > 0n) result.won += 1;
    else result.lost += 1;
    holding.costMicros = 0n;
    holding.proceedsMicros = 0n;
  };
  const settle = (market: MarketTerms) => {
    const { atMs, payoutsMicros } = market.resolution!;
    market.tokenIds.forEach((assetId, index) => {
      const holding = holdings.get(assetId);
      if (!holding || holding.shares <= 0n) return;
      const payout = mulDiv(holding.shares, payoutsMicros[index] ?? 0n, MICRO);
      cash += payout;
      holding.proceedsMicros += payout;
      result.settlements.push({ atMs, marketId: market.marketId, assetId, sharesMicros: holding.shares, payoutMicros: payout });
      holding.shares = 0n;
      closeEpisode(holding);
    });
  };
  const markOf = (holding: Holding, dayMs: number, atMs: number): bigint => {
    const market = inputs.markets.get(holding.marketId)!;
    if (market.resolution && market.resolution.atMs <= atMs) return market.resolution.payoutsMicros[holding.outcomeIndex] ?? 0n;
    const yes = inputs.closes.get(holding.marketId)?.get(dayMs);
    if (yes !== undefined) {
      if (holding.outcomeIndex === market.yesIndex) return yes;
      if (market.tokenIds.length === 2) return MICRO - yes;
    }
    return holding.lastPriceMicros;
  };
  let peak = inputs.startingCashMicros;
  const valueAt = (dayMs: number, atMs: number) => {
    let positions = 0n;
    for (const [, holding] of [...holdings.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (holding.shares > 0n) positions += mulDiv(holding.shares, markOf(holding, dayMs, atMs), MICRO);
    }
    const equity = cash + positions;
    if (equity > peak) peak = equity;
    if (peak > 0n) {
      const drawdown = divide((peak - equity) * 1_000_000n, peak);
      if (drawdown > result.maxDrawdownPpm) result.maxDrawdownPpm = drawdown;
    }
    return { dayMs, cashMicros: cash, positionsMicros: positions, equityMicros: equity };
  };

  let t = 0;
  let r = 0;
  for (let day = Math.floor(inputs.fromMs / DAY_MS) * DAY_MS; day < inputs.toMs; day += DAY_MS) {
    const end = Math.min(day + DAY_MS, inputs.toMs);
    // Resolutions before triggers of the same millisecond: a market that settled cannot be traded.
    while (t < triggers.length || r < resolutions.length) {
      const nextT = t < triggers.length && triggers[t]!.atMs < end ? triggers[t]! : null;
      const nextR = r < resolutions.length && resolutions[r]!.resolution!.atMs < end ? resolutions[r]! : null;
      if (!nextT && !nextR) break;
      if (nextR && (!nextT || nextR.resolution!.atMs <= nextT.atMs)) {
        settle(nextR);
        r += 1;
        continue;
      }
      t += 1;
      const trigger = nextT!;
      const market = inputs.markets.get(trigger.marketId);
      const assetId = market?.tokenIds[trigger.outcomeIndex];
      const skip = (reason: Skipped['reason']) =>
        result.skipped.push({ atMs: trigger.atMs, marketId: trigger.marketId, ref: trigger.ref, reason });
      if (!market || assetId === undefined) {
        skip('unknown_market');
        continue;
      }
      if (market.resolution && market.resolution.atMs <= trigger.atMs) {
        skip('no_liquidity');
        continue;
      }
      const holding = holdings.get(assetId) ?? {
        marketId: market.marketId,
        outcomeIndex: trigger.outcomeIndex,
        shares: 0n,
        costMicros: 0n,
        proceedsMicros: 0n,
        lastPriceMicros: trigger.referenceMicros,
      };
      const book = inputs.books.get(trigger.seq) ?? null;
      let execution: Execution;
      let side: 'buy' | 'sell';
      if (trigger.want.kind === 'buy') {
        side = 'buy';
        execution = execute({ side, notionalMicros: trigger.want.notionalMicros }, trigger.referenceMicros, book, market.fee);
        if (execution.sharesMicros === 0n) {
          skip('no_liquidity');
          continue;
        }
        if (execution.notionalMicros + execution.feeMicros > cash) {
          skip('insufficient_cash');
          continue;
        }
        cash -= execution.notionalMicros + execution.feeMicros;
        holding.shares += execution.sharesMicros;
        holding.costMicros += execution.notionalMicros + execution.feeMicros;
      } else {
        side = 'sell';
        const wanted =
          trigger.want.kind === 'sell_all'
            ? holding.shares
            : divide(trigger.want.notionalMicros * MICRO, trigger.referenceMicros || 1n, 'floor');
        const shares = minBig(wanted, holding.shares);
        if (shares <= 0n) {
          skip('no_position');
          continue;
        }
        execution = execute({ side, sharesMicros: shares }, trigger.referenceMicros, book, market.fee);
        if (execution.sharesMicros === 0n) {
          skip('no_liquidity');
          continue;
        }
        cash += execution.notionalMicros - execution.feeMicros;
        holding.shares -= execution.sharesMicros;
        holding.proceedsMicros += execution.notionalMicros - execution.feeMicros;
      }
      holding.lastPriceMicros = divide(execution.notionalMicros * MICRO, execution.sharesMicros);
      holdings.set(assetId, holding);
      if (side === 'sell' && holding.shares === 0n) closeEpisode(holding);
      result.feesMicros += execution.feeMicros;
      result.slippageMicros += execution.slippageMicros;
      result.volumeMicros += execution.notionalMicros;
      result.trades.push({
        seq: trigger.seq,
        atMs: trigger.atMs,
        marketId: market.marketId,
        assetId,
        outcome: market.outcomes[trigger.outcomeIndex] ?? String(trigger.outcomeIndex),
        side,
        ref: trigger.ref,
        referenceMicros: trigger.referenceMicros,
        execution,
      });
    }
    result.curve.push(valueAt(day, end - 1));
  }
  result.finalEquityMicros = result.curve.at(-1)?.equityMicros ?? cash;
  return result;
}
