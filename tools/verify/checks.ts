/**
 * The checks, as pure functions of what collect.ts read. Amounts are compared in micro-units: the API
 * serves USDC numbers that are micro-unit integers / 10^6 (exact back to the micro-unit below 9 x 10^9
 * USDC), positions serve shares and cost as exact micro strings, the truth serves micro strings.
 */
import { mulDiv, parseScaled } from '../../services/shared/decimal.js';
import type { Population, WalletObservation } from './collect.js';
import type { ApiPosition, TruthWallet } from './sources.js';

export interface CheckResult {
  id: string;
  name: string;
  /** Wallets (or markets, for the zero sum) checked. */
  checked: number;
  unit: 'wallets' | 'markets';
  violations: number;
  examples: string[];
  /** Why the check did not run, when it did not. */
  skipped?: string;
  tolerance: string;
}

const EXAMPLES = 5;
const MARK_SCALE = 18;
const MARK_ONE = 10n ** 18n;

const usdcMicro = (value: number): bigint => BigInt(Math.round(value * 1e6));
const big = (value: string | undefined | null): bigint => (value ? BigInt(value) : 0n);
const shown = (micro: bigint): string => {
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  return `${negative ? '-' : ''}${abs / 1_000_000n}.${String(abs % 1_000_000n).padStart(6, '0')}`;
};
const short = (wallet: string) => `${wallet.slice(0, 10)}…`;

function sharesOf(position: ApiPosition): bigint {
  return position.size_shares_micro !== undefined ? BigInt(position.size_shares_micro) : usdcMicro(position.size_shares);
}

/** size x mark rounded half up to a micro-unit, the mark taken as the exact decimal the JSON number prints. */
function valueAt(shares: bigint, mark: number): bigint {
  const scaled = parseScaled(mark, MARK_SCALE);
  if (scaled === null) throw new Error(`mark ${mark} has more than ${MARK_SCALE} decimals`);
  return mulDiv(shares, scaled, MARK_ONE, 'half-up');
}

class Tally {
  checked = 0;
  violations = 0;
  readonly examples: string[] = [];
  constructor(
    readonly id: string,
    readonly name: string,
    readonly tolerance: string,
    readonly unit: 'wallets' | 'markets' = 'wallets',
  ) {}
  see(ok: boolean, example: () => string): void {
    this.checked++;
    if (ok) return;
    this.violations++;
    if (this.examples.length < EXAMPLES) this.examples.push(example());
  }
  result(): CheckResult {
    return {
      id: this.id,
      name: this.name,
      checked: this.checked,
      unit: this.unit,
      violations: this.violations,
      examples: this.examples,
      tolerance: this.tolerance,
    };
  }
}

const skipped = (id: string, name: string, reason: string, unit: 'wallets' | 'markets' = 'wallets'): CheckResult => ({
  id,
  name,
  checked: 0,
  unit,
  violations: 0,
  examples: [],
  skipped: reason,
  tolerance: '-',
});

/** 1' The API's figures agree with each other: total = realized + unrealized, unrealized = Σ positions, each position = value - cost. */
function internalIdentity(population: Population): CheckResult {
  const tally = new Tally(
    "1'",
    'API identity: total = realized + unrealized = realized + Σ(value at mark - cost)',
    '0 micro on sums; 1 micro per position on value = size x mark (the mark is served as a rounded float)',
  );
  for (const w of population.wallets) {
    const life = w.trader.lifetime;
    const problems: string[] = [];
    if (usdcMicro(life.total_pnl) !== usdcMicro(life.total_realized_pnl) + usdcMicro(life.unrealized_pnl))
      problems.push('total != realized + unrealized');
    let unrealized = 0n;
    for (const p of w.positions.positions) {
      unrealized += usdcMicro(p.unrealized_pnl_usdc);
      const cost = p.cost_basis_micro !== undefined ? BigInt(p.cost_basis_micro) : usdcMicro(p.cost_basis_usdc);
      if (p.mark_price === null || p.current_value_usdc === null) {
        if (p.unrealized_pnl_usdc !== 0) problems.push(`${p.asset_id.slice(0, 8)}: unmarked but unrealized ${p.unrealized_pnl_usdc}`);
        continue;
      }
      const value = usdcMicro(p.current_value_usdc);
      const expected = valueAt(sharesOf(p), p.mark_price);
      if (value - expected > 1n || expected - value > 1n)
        problems.push(`${p.asset_id.slice(0, 8)}: value ${shown(value)} != size x mark ${shown(expected)}`);
      if (usdcMicro(p.unrealized_pnl_usdc) !== value - cost) problems.push(`${p.asset_id.slice(0, 8)}: unrealized != value - cost`);
    }
    if (unrealized !== usdcMicro(life.unrealized_pnl))
      problems.push(`lifetime unrealized ${life.unrealized_pnl} != Σ positions ${shown(unrealized)}`);
    tally.see(problems.length === 0, () => `${short(w.wallet)} ${problems.slice(0, 2).join('; ')}`);
  }
  return tally.result();
}

/** 1 realized + unrealized = cash received - cash paid + value of the held shares, at the positions' own marks. */
export function cashIdentity(population: Population, hasTruth: boolean): CheckResult {
  const name = 'identity: realized + unrealized = cash in - cash out + cost transferred out - in + value held';
  if (!hasTruth)
    return skipped('1', name, 'needs each wallet’s cash flows (splits, merges, redemptions), which /v1 does not serve: give --truth');
  const tally = new Tally('1', name, '0 micro: cost out + basis left = cost paid in, and both sides use the served values');
  for (const w of population.wallets) {
    if (!w.truth || w.movedTo) continue;
    let unrealized = 0n;
    let held = 0n;
    for (const p of w.positions.positions) {
      unrealized += usdcMicro(p.unrealized_pnl_usdc);
      // An unmarked position is served with unrealized 0, i.e. valued at its cost.
      held += p.current_value_usdc === null ? usdcMicro(p.cost_basis_usdc) : usdcMicro(p.current_value_usdc);
    }
    const left = usdcMicro(w.trader.lifetime.total_realized_pnl) + unrealized;
    // Shares moved by transfer carry their cost: a transfer out counts as that cost received in cash,
    // a transfer in as that cost paid (the sender realizes nothing, the receiver's basis is the cost).
    const transferred = big(w.truth.transfer_out_cost_micro) - big(w.truth.transfer_in_cost_micro);
    const right = big(w.truth.cash_received_micro) - big(w.truth.cash_paid_micro) + transferred + held;
    tally.see(
      left === right,
      () => `${short(w.wallet)} realized+unrealized ${shown(left)} vs cash+held ${shown(right)} (off ${shown(left - right)})`,
    );
  }
  return tally.result();
}

/**
 * 0 Every listed wallet (the board's and the truth's) was read: the API knows it and its statistics,
 * positions and curve named one data_as_of. A wallet the API does not know while the truth says it
 * moved shares or cash is a wallet whose figures the service lost.
 */
export function coverage(population: Population): CheckResult {
  const tally = new Tally('0', 'every listed wallet read: known to the API (no 404), its three reads at one data_as_of', '-');
  const unread = new Map(population.unread.map((u) => [u.wallet, u]));
  for (const wallet of [...population.wallets.map((w) => w.wallet), ...unread.keys()].sort()) {
    const missed = unread.get(wallet);
    tally.see(missed === undefined, () => `${short(wallet)} ${missed?.detail}`);
  }
  return tally.result();
}

/**
 * 2 Per fully covered resolved market, the wallets' PnL before fees sums to 0 (net of fees: to minus
 * the fees paid; each wallet's fees are held to the truth's in 4). A wallet the API does not know is
 * counted as the API serves it: holding nothing (its truth's cash still counts, so a market where it
 * held shares is a violation, not skipped); a wallet read inconsistently skips the markets its truth
 * names (all of them without a truth).
 */
export function zeroSum(population: Population, hasTruth: boolean): CheckResult[] {
  const name = 'zero sum per resolved market: Σ PnL before fees = 0 (cash from truth, shares from API positions)';
  const truthName = 'zero sum per resolved market, the truth alone (the simulator is consistent)';
  if (!hasTruth) {
    const reason = '/v1 serves no per-market PnL or cash flows per wallet: give --truth';
    return [skipped('2', name, reason, 'markets'), skipped('2t', truthName, reason, 'markets')];
  }
  const tally = new Tally('2', name, '0 micro', 'markets');
  const truthTally = new Tally('2t', truthName, '0 micro', 'markets');
  // Each wallet's truth and the positions the API serves for it (none for a wallet it does not know).
  const accounts: Array<{ truth: TruthWallet; positions: ApiPosition[] }> = [];
  const unreadMarkets = new Set<string>();
  for (const w of population.wallets) {
    if (!w.truth) continue;
    accounts.push({ truth: w.truth, positions: w.positions.positions });
    // A wallet that moved while read: the markets it moved in are not summed at one position (one whose
    // account there is the same in both truths is: nothing of it changed in between).
    if (w.movedTo) {
      const still = stillIn(w);
      for (const market of marketsOf(w)) if (!still(market)) unreadMarkets.add(market);
    }
  }
  let unreadWithoutTruth = false;
  for (const u of population.unread) {
    if (u.reason === 'unknown' && u.truth) accounts.push({ truth: u.truth, positions: [] });
    else if (u.truth) for (const m of u.truth.markets) unreadMarkets.add(m.market_id);
    else unreadWithoutTruth = true;
  }
  const outcomeOf = new Map<string, number>();
  const payoutOf = new Map<string, bigint[]>();
  for (const { truth } of accounts) {
    for (const t of truth.tokens) outcomeOf.set(t.token_id, t.outcome_index);
    for (const m of truth.markets) if (m.payout) payoutOf.set(m.market_id, m.payout.map(BigInt));
  }
  interface Sum {
    /** Σ cash in - cash out (truth) + Σ shares held at the payout: the API's shares, the truth's. */
    api: bigint;
    truth: bigint;
    /**
     * After a void: balances with an odd number of micro-shares (redeemed, held, a v1 buy's fee shares),
     * each paid half a micro-unit less than half its shares (the CTF rounds each outcome's half down).
     */
    oddApi: bigint;
    oddTruth: bigint;
    covered: boolean;
  }
  const sums = new Map<string, Sum>();
  const atPayout = (payout: bigint[], tokenId: string, shares: bigint): bigint | null => {
    const outcome = outcomeOf.get(tokenId);
    return outcome === undefined ? null : (shares * (payout[outcome] as bigint)) / 1_000_000n;
  };
  const voided = (payout: bigint[]) => payout.every((p) => p === 500_000n);
  const odd = (payout: bigint[], shares: bigint): bigint => (voided(payout) ? shares % 2n : 0n);
  for (const { truth, positions } of accounts) {
    for (const m of truth.markets) {
      const payout = payoutOf.get(m.market_id);
      if (!payout) continue;
      // A wallet read before the market resolved still counts: nothing of a market moves after its
      // resolution in the simulator, and a wallet's figures are rebuilt after each change of it.
      const sum = sums.get(m.market_id) ?? { api: 0n, truth: 0n, oddApi: 0n, oddTruth: 0n, covered: true };
      if (voided(payout)) {
        sum.oddApi += BigInt(m.void_odd_redeemed ?? 0);
        sum.oddTruth += BigInt(m.void_odd_redeemed ?? 0);
      }
      sum.covered &&= m.both_sides_wallets;
      let cash = big(m.cash_received_micro) - big(m.cash_paid_micro);
      // A v1 buy's fee shares went to the exchange: the wallets' shares are short of them at the payout,
      // and their cash paid (before fees) of their value at the fill price; both are put back.
      for (const t of truth.tokens)
        if (t.market_id === m.market_id) {
          cash += (atPayout(payout, t.token_id, big(t.fee_shares_micro)) ?? 0n) - big(t.fee_shares_value_micro);
          sum.oddApi += odd(payout, big(t.fee_shares_micro));
          sum.oddTruth += odd(payout, big(t.fee_shares_micro)) + odd(payout, BigInt(t.shares_micro));
        }
      sum.api += cash;
      sum.truth += cash;
      for (const t of truth.tokens) {
        if (t.market_id === m.market_id) sum.truth += atPayout(payout, t.token_id, BigInt(t.shares_micro)) ?? 0n;
      }
      for (const p of positions) {
        if (p.market_id !== m.market_id) continue;
        const value = atPayout(payout, p.asset_id, sharesOf(p));
        if (value === null) sum.covered = false;
        else sum.api += value;
        sum.oddApi += odd(payout, sharesOf(p));
      }
      sums.set(m.market_id, sum);
    }
  }
  // A neg-risk conversion's counterparty is the adapter: it takes the NO shares (to the burn address,
  // worth their payout), gives the YES shares and the collateral (the vault's fee never reached the
  // wallet). Counting it makes each market's sum close again; the collateral is in the market whose
  // cash the truth counts it in.
  for (const { truth } of accounts) {
    for (const c of truth.conversions ?? []) {
      const adapter = (market: string, amount: bigint) => {
        const sum = sums.get(market);
        if (!sum) return;
        sum.api += amount;
        sum.truth += amount;
      };
      for (const market of c.no_market_ids) {
        const payout = payoutOf.get(market);
        if (payout) adapter(market, (BigInt(c.amount_micro) * (payout[1] as bigint)) / 1_000_000n);
      }
      for (const market of c.yes_market_ids) {
        const payout = payoutOf.get(market);
        if (payout) adapter(market, -(BigInt(c.yes_out_micro) * (payout[0] as bigint)) / 1_000_000n);
      }
      adapter(c.cash_market_id, -BigInt(c.collateral_out_micro));
    }
  }
  for (const [market, sum] of sums) {
    // Fully covered: every fill had wallets on both sides and every wallet in it was read.
    if (!sum.covered || unreadWithoutTruth || unreadMarkets.has(market)) continue;
    // 2 x Σ + odd balances = 0: after a void the sum is minus half a micro-unit per odd balance.
    tally.see(
      2n * sum.api + sum.oddApi === 0n,
      () => `${market.slice(0, 10)}… Σ PnL before fees ${shown(sum.api)} (expected ${-sum.oddApi}/2 micro)`,
    );
    truthTally.see(
      2n * sum.truth + sum.oddTruth === 0n,
      () => `${market.slice(0, 10)}… truth Σ PnL ${shown(sum.truth)} (expected ${-sum.oddTruth}/2 micro)`,
    );
  }
  return [tally.result(), truthTally.result()];
}

/**
 * Whether a wallet's account in a market is the same in its truth at data_as_of and after the reads
 * (the market's figures and its tokens'): always, for a wallet that did not move. A wallet that moved
 * while read moved in some markets only; in the others nothing changed, so the API must serve them
 * exactly, whichever state between the two it serves the moving ones in.
 */
function stillIn(w: WalletObservation): (market: string) => boolean {
  const before = w.truth;
  const after = w.movedTo;
  if (!before || !after) return () => true;
  const account = (truth: TruthWallet, market: string) =>
    JSON.stringify([truth.markets.find((m) => m.market_id === market) ?? null, truth.tokens.filter((t) => t.market_id === market)]);
  const known = new Map<string, boolean>();
  return (market) => {
    const seen = known.get(market);
    if (seen !== undefined) return seen;
    const still = account(before, market) === account(after, market);
    known.set(market, still);
    return still;
  };
}

/** The markets a wallet's two truths name (its moved ones among them). */
function marketsOf(w: WalletObservation): string[] {
  const named = [w.truth, w.movedTo].flatMap((truth) => (truth ? [...truth.markets, ...truth.tokens].map((m) => m.market_id) : []));
  return [...new Set(named)];
}

/**
 * 3 Shares per (wallet, token): never negative, and (with the truth) the chain's balance; for a wallet
 * that moved while read, in the markets it did not move in.
 */
export function shares(population: Population, hasTruth: boolean): CheckResult {
  const tally = new Tally(
    '3',
    hasTruth ? 'shares per (wallet, token) >= 0 and = chain balance (truth)' : 'shares per (wallet, token) >= 0',
    '0 micro',
  );
  for (const w of population.wallets) {
    const problems: string[] = [];
    const api = new Map<string, bigint>();
    for (const p of w.positions.positions) {
      const held = sharesOf(p);
      api.set(p.asset_id, held);
      if (held < 0n) problems.push(`${p.asset_id.slice(0, 8)} negative ${shown(held)}`);
    }
    if (hasTruth && w.truth) {
      const still = stillIn(w);
      const marketOf = new Map([
        ...w.positions.positions.map((p) => [p.asset_id, p.market_id] as const),
        ...w.truth.tokens.map((t) => [t.token_id, t.market_id] as const),
      ]);
      const truth = new Map(w.truth.tokens.map((t) => [t.token_id, BigInt(t.shares_micro)]));
      for (const token of new Set([...api.keys(), ...truth.keys()])) {
        if (!still(marketOf.get(token) ?? '')) continue;
        const a = api.get(token) ?? 0n;
        const t = truth.get(token) ?? 0n;
        if (t < 0n) problems.push(`${token.slice(0, 8)} chain balance negative ${shown(t)}`);
        if (a !== t) problems.push(`${token.slice(0, 8)} API ${shown(a)} chain ${shown(t)}`);
      }
    }
    tally.see(problems.length === 0, () => `${short(w.wallet)} ${problems.length} tokens, e.g. ${problems.slice(0, 2).join('; ')}`);
  }
  return tally.result();
}

function unrealizedAtApiMarks(w: WalletObservation, truth: TruthWallet, counted: (market: string) => boolean): bigint {
  const marks = new Map(w.positions.positions.map((p) => [p.asset_id, p.mark_price]));
  let total = 0n;
  for (const t of truth.tokens) {
    if (!counted(t.market_id)) continue;
    const held = BigInt(t.held_micro);
    if (held === 0n) continue;
    const mark = marks.get(t.token_id);
    // Unmarked (or unknown to the API): served as 0, and check 3 reports the missing shares.
    if (mark === null || mark === undefined) continue;
    total += valueAt(held, mark) - BigInt(t.cost_basis_micro);
  }
  return total;
}

/** 4 Every served figure against the truth's, per figure. */
export function againstTruth(population: Population, hasTruth: boolean): CheckResult[] {
  const figures = ['realized', 'unrealized', 'volume', 'trades', 'markets_traded', 'fees', 'won', 'lost', 'daily_curve'] as const;
  if (!hasTruth) return figures.map((f) => skipped(`4 ${f}`, `${f} = truth`, 'no truth: the simulator is not there in production'));
  const t = Object.fromEntries(
    figures.map((f) => [
      f,
      new Tally(
        `4 ${f}`,
        `${f} = truth`,
        f === 'unrealized' ? '1 micro per held position (value rounding at a float-served mark)' : '0 micro',
      ),
    ]),
  ) as Record<(typeof figures)[number], Tally>;
  for (const w of population.wallets) {
    const truth = w.truth;
    if (!truth) continue;
    // A wallet that moved while read is held between its truth at data_as_of and its truth after the
    // reads on the figures that only grow; every other wallet to its truth exactly. The service may serve
    // any mix of its markets' states between the two (the ledger applies its partitions apart), so a sum
    // that can also fall (realized, the curve) has no bound then: those are checked on still wallets
    // only. Unrealized is per position: a moved wallet's is checked in the markets it did not move in.
    const later = w.movedTo ?? truth;
    const life = w.trader.lifetime;
    const within = (api: bigint, a: bigint, b: bigint) => api >= (a < b ? a : b) && api <= (a < b ? b : a);
    const wanted = (a: bigint, b: bigint, show: (v: bigint) => string) => (a === b ? show(a) : `${show(a)}..${show(b)}`);
    const exact = (tally: Tally, api: bigint, want: bigint, after: bigint) =>
      tally.see(
        within(api, want, after),
        () => `${short(w.wallet)} API ${shown(api)} truth ${wanted(want, after, shown)} (off ${shown(api - want)})`,
      );
    const count = (tally: Tally, api: number, want: number, after: number) =>
      tally.see(
        within(BigInt(api), BigInt(want), BigInt(after)),
        () => `${short(w.wallet)} API ${api} truth ${wanted(BigInt(want), BigInt(after), String)}`,
      );
    exact(t.volume, usdcMicro(life.volume_usdc), BigInt(truth.volume_micro), BigInt(later.volume_micro));
    count(t.trades, life.trades, truth.trades, later.trades);
    count(t.markets_traded, life.markets_traded, truth.markets_traded, later.markets_traded);
    exact(t.fees, usdcMicro(life.fees_paid_usdc), BigInt(truth.fees_micro), BigInt(later.fees_micro));
    const resolved = w.movedTo ?? w.resolvedTo ?? truth;
    count(t.won, life.won, truth.won, resolved.won);
    count(t.lost, life.lost, truth.lost, resolved.lost);
    const still = stillIn(w);
    const served = w.positions.positions.filter((p) => still(p.market_id)).reduce((sum, p) => sum + usdcMicro(p.unrealized_pnl_usdc), 0n);
    const want = unrealizedAtApiMarks(w, truth, still);
    const heldPositions = BigInt(truth.tokens.filter((tok) => tok.held_micro !== '0' && still(tok.market_id)).length);
    t.unrealized.see(
      served - want <= heldPositions && want - served <= heldPositions,
      () =>
        `${short(w.wallet)} API ${shown(served)} truth at API marks ${shown(want)} (off ${shown(served - want)})${w.movedTo ? ', in the markets it did not move in' : ''}`,
    );
    // The curve up to the day before the first whose realized differs between the two truths: a wallet
    // that moved while read moved on that day or later, and what it realized before is settled.
    const settledBefore = w.movedTo ? firstChangedDay(truth, w.movedTo) : undefined;
    const wrongDays: string[] = [];
    for (const point of w.curve.points) {
      if (settledBefore !== undefined && point.date >= settledBefore) continue;
      const cumulative = truth.realized_by_day.filter((d) => d.date <= point.date).reduce((sum, d) => sum + BigInt(d.realized_micro), 0n);
      if (usdcMicro(point.realized) !== cumulative) wrongDays.push(`${point.date} API ${point.realized} truth ${shown(cumulative)}`);
    }
    t.daily_curve.see(
      wrongDays.length === 0,
      () =>
        `${short(w.wallet)} ${wrongDays.length} days, e.g. ${wrongDays[0]}${w.movedTo ? `, before ${settledBefore} (it moved while read)` : ''}`,
    );
    // Realized per market (the sum over its tokens, closed positions included) in every market the wallet
    // did not move in, and its lifetime sum when it did not move at all.
    const servedRealized = new Map<string, bigint>();
    for (const p of w.positions.positions)
      servedRealized.set(p.market_id, (servedRealized.get(p.market_id) ?? 0n) + usdcMicro(p.realized_pnl_usdc));
    const truthRealized = new Map(truth.markets.map((m) => [m.market_id, BigInt(m.realized_micro)]));
    const offMarkets = [...new Set([...servedRealized.keys(), ...truthRealized.keys()])]
      .filter((market) => still(market) && (servedRealized.get(market) ?? 0n) !== (truthRealized.get(market) ?? 0n))
      .map((market) => `${short(market)} API ${shown(servedRealized.get(market) ?? 0n)} truth ${shown(truthRealized.get(market) ?? 0n)}`);
    const lifetime = usdcMicro(life.total_realized_pnl);
    if (!w.movedTo && lifetime !== BigInt(truth.realized_micro))
      offMarkets.unshift(`lifetime API ${shown(lifetime)} truth ${shown(BigInt(truth.realized_micro))}`);
    t.realized.see(
      offMarkets.length === 0,
      () =>
        `${short(w.wallet)} ${offMarkets.length} off, e.g. ${offMarkets.slice(0, 2).join('; ')}${w.movedTo ? ' (in the markets it did not move in)' : ''}`,
    );
  }
  return figures.map((f) => t[f].result());
}

/** The first day whose realized differs between two truths of a wallet (a day missing from one differs); past every day when none does. */
function firstChangedDay(before: TruthWallet, after: TruthWallet): string {
  const days = (truth: TruthWallet) => new Map(truth.realized_by_day.map((d) => [d.date, d.realized_micro]));
  const a = days(before);
  const b = days(after);
  const changed = [...new Set([...a.keys(), ...b.keys()])].filter((day) => a.get(day) !== b.get(day)).sort();
  return changed[0] ?? '9999-12-31';
}

/** Whether one wallet agrees with its truth on every per-wallet check (1, 3 and 4): collect.ts reads a still wallet that does not again. */
export function agreesWithTruth(observation: WalletObservation): boolean {
  const one: Population = { wallets: [observation], unread: [], listed: { board: 1, truth: 1, union: 1, truncated: false } };
  return [cashIdentity(one, true), shares(one, true), ...againstTruth(one, true)].every((result) => result.violations === 0);
}

export function runChecks(population: Population, hasTruth: boolean): CheckResult[] {
  return [
    coverage(population),
    internalIdentity(population),
    cashIdentity(population, hasTruth),
    ...zeroSum(population, hasTruth),
    shares(population, hasTruth),
    ...againstTruth(population, hasTruth),
  ];
}
