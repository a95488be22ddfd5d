/**
 * Reads of the trader figures, for the trader routes, the valuation pass and other read models (copy
 * trading reads category leaders through here): a wallet's statistics from its ledger rows
 * (../positions/queries.ts reads them, from its snapshot or the tables) with its stored curve, and
 * the valuation pass's figures. Every read is bounded: per-wallet reads touch that wallet's
 * pre-aggregated rows only; leaderboards read one row per wallet.
 */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { DAY_MS, iso, startOfUtcDay } from '../../shared/time.js';
import { readParts } from '../../analytics/read-parts.js';
import { dailyClosesScalar, marketDataFrom, marketDataPart, marketDataRows, type MarketInfo } from '../positions/market-data.js';
import {
  asOfFrom,
  DAILY_PART,
  type DataAsOf,
  fromSnapshots,
  IN_WALLETS,
  POSITIONS_PART,
  PROGRESS_PART,
  positionRow,
  type WalletArrays as LedgerArrays,
  WALLET_MARKETS,
} from '../positions/queries.js';
import { type CurveArrays, curveColumns, curveUnrealized } from './pnl-curve.js';
import { marksKey, type StoredCurveTuple, storedCurveRow, storedCurvesPart, storedUnrealized } from './stored-curve.js';
import { capitalAtRisk, type CashDay, type MarketRow, traderReport, type TraderReport, type WalletData } from './trader-report.js';

const big = (v: unknown) => BigInt(String(v ?? '0'));
const num = (v: unknown) => Number(v ?? 0);

/** The parts walletStatement reads for the wallets: the ledger's and the stored curves. */
interface WalletArrays extends LedgerArrays {
  stored_curves: StoredCurveTuple[];
}

/**
 * Everything the wallets' statistics need, in one statement: the ledger's progress, the wallets'
 * (wallet, token) rows (their totals and per-market rows are summed from them in walletData), daily
 * rows, their stored curves (stored-curve.ts), and what their markets are valued with now. Each part is
 * a one-row read of the wallets' own pre-aggregated rows (read-parts.ts: a UNION ALL, its branches run
 * together): one statement, and as few tables as possible, because on chDB each table read costs its
 * planning before it reads anything (so totals and per-market rows are summed from the (wallet, token)
 * rows, not read from trader_lifetime and trader_market_pnl). curveDays 0 reads no curve (positions and
 * category figures need none; risk's drawdown is then 0). The daily rows cover the wallets' whole
 * history (one row per active day): the curve's witness counts the ledger rows of every day before today.
 * `fromSnapshot` reads the rows from the wallets' snapshots when each has one (lagging the ledger by up
 * to a refresher run; the progress says how far), else from the tables.
 */
async function walletStatement(store: AnalyticsStore, wallets: string[], options: WalletReadOptions) {
  const today = startOfUtcDay(options.nowMs);
  const from30 = today - 29 * DAY_MS;
  const curve = options.curveDays > 0;
  const curveFrom = today - (Math.max(1, options.curveDays) - 1) * DAY_MS;
  const storedCurves = curve ? storedCurvesPart(IN_WALLETS) : 'SELECT [] AS value';
  const row =
    (options.fromSnapshot
      ? await fromSnapshots<Pick<WalletArrays, 'stored_curves'>>(store, wallets, { stored_curves: storedCurves })
      : null) ??
    (await readParts<WalletArrays>(
      store,
      {
        progress: PROGRESS_PART,
        daily: DAILY_PART,
        stored_curves: storedCurves,
        positions: POSITIONS_PART,
        ...marketDataPart(WALLET_MARKETS),
      },
      { wallets },
    ));
  return { row, today, from30, curveFrom, curve };
}

/** A wallet's rows with the count its stored curve is checked against: ledger rows dated before today. */
type ReadWallet = WalletData & { rowsBefore: bigint };

/** The wallets' rows from one statement, by wallet (wallets without ledger rows are absent). */
function walletData(read: Awaited<ReturnType<typeof walletStatement>>): Map<string, ReadWallet> {
  const { row, today, from30, curveFrom, curve } = read;
  const result = new Map<string, ReadWallet>();
  const marketRows = new Map<string, Map<string, MarketRow>>();
  // Totals and per-market rows are sums of the wallet's (wallet, token) rows: every ledger row has its
  // wallet, token and market (migration 0052).
  for (const tuple of row.positions) {
    const [wallet, , marketId, , , , , , , realized, , , volume, trades, costIn, firstFill, lastFill, fees] = tuple;
    let w = result.get(wallet);
    if (!w) {
      w = {
        wallet,
        totals: { realized: 0n, volume: 0n, trades: 0, fees: 0n, first_ms: null, last_ms: null },
        last30: { realized: 0n, volume: 0n, trades: 0, fees: 0n },
        capitalAtRisk: 0n,
        positions: [],
        markets: [],
        curve: null,
        rowsBefore: 0n,
      };
      result.set(wallet, w);
      marketRows.set(wallet, new Map());
    }
    w.positions.push(positionRow(tuple));
    const t = w.totals;
    t.realized += big(realized);
    t.volume += big(volume);
    t.trades += num(trades);
    t.fees += big(fees);
    if (firstFill !== null) t.first_ms = t.first_ms === null ? num(firstFill) : Math.min(t.first_ms, num(firstFill));
    if (lastFill !== null) t.last_ms = t.last_ms === null ? num(lastFill) : Math.max(t.last_ms, num(lastFill));
    const byMarket = marketRows.get(wallet)!;
    const m = byMarket.get(marketId) ?? { market_id: marketId, realized: 0n, volume: 0n, trades: 0, cost_in: 0n };
    byMarket.set(marketId, m);
    m.realized += big(realized);
    m.volume += big(volume);
    m.trades += num(trades);
    m.cost_in += big(costIn);
  }
  for (const w of result.values()) {
    w.markets = [...marketRows.get(w.wallet)!.values()];
    if (curve)
      w.curve = {
        fromDayMs: curveFrom,
        toDayMs: today,
        realizedBefore: w.totals.realized,
        dailyRealized: new Map(),
        unrealizedByDay: new Map(),
      };
  }
  const cashByDay = new Map<string, CashDay[]>();
  for (const [wallet, dayMs, realized, volume, trades, changes, fees, cash, paid] of row.daily) {
    const w = result.get(wallet);
    if (!w) continue;
    const day = num(dayMs);
    const days = cashByDay.get(wallet) ?? [];
    days.push({ dayMs: day, cash: big(cash), paid: big(paid) });
    cashByDay.set(wallet, days);
    if (day < today) w.rowsBefore += big(changes);
    if (day >= from30) {
      w.last30.realized += big(realized);
      w.last30.volume += big(volume);
      w.last30.trades += num(trades);
      w.last30.fees += big(fees);
    }
    if (w.curve && day >= curveFrom) {
      // Realized before the curve = lifetime realized - realized on its days (and any later day).
      w.curve.realizedBefore -= big(realized);
      w.curve.dailyRealized.set(day, (w.curve.dailyRealized.get(day) ?? 0n) + big(realized));
    }
  }
  for (const [wallet, days] of cashByDay) result.get(wallet)!.capitalAtRisk = capitalAtRisk(days);
  return result;
}

/**
 * Values the closed days of the curves of `wallets` (pnl-curve.ts) in a statement of their own: the
 * held tokens' states and their markets' closes. Returns per wallet its unrealized PnL by day, the
 * markets of the tokens it held on a curve day and its ledger rows dated before today counted in the
 * same read as the states (what a stored curve is stamped with: stored-curve.ts).
 */
async function valuedCurves(
  store: AnalyticsStore,
  wallets: string[],
  markets: Map<string, MarketInfo>,
  curveFrom: number,
  today: number,
): Promise<Map<string, { byDay: Map<number, bigint>; held: string[]; rowsBefore: bigint }>> {
  const curve = curveColumns(IN_WALLETS);
  const [row] = await store.query<CurveArrays>(`WITH ${dailyClosesScalar(WALLET_MARKETS)}, ${curve.with} SELECT ${curve.columns}`, {
    wallets,
    curveFrom,
    today,
  });
  const byWallet = curveUnrealized(row!, markets, curveFrom, today);
  const result = new Map<string, { byDay: Map<number, bigint>; held: string[]; rowsBefore: bigint }>();
  const entry = (wallet: string) => {
    let e = result.get(wallet);
    if (!e) {
      e = { byDay: byWallet.get(wallet) ?? new Map<number, bigint>(), held: [], rowsBefore: 0n };
      result.set(wallet, e);
    }
    return e;
  };
  const [stateWallets, stateMarkets] = row!.curve_states;
  for (const [i, wallet] of stateWallets.entries()) entry(wallet).held.push(stateMarkets[i]!);
  for (const [wallet, rows] of row!.curve_rows_before) entry(wallet).rowsBefore += big(rows);
  return result;
}

export interface WalletReports {
  reports: Map<string, { data: WalletData; report: TraderReport }>;
  markets: Map<string, MarketInfo>;
  /** How far the ledger had applied the log when these rows were read. */
  asOf: DataAsOf;
  /**
   * The curves: wallets served from their stored closed days, and trader_curve rows of the curves
   * valued here (the valuation pass stores them).
   */
  curves: { stored: string[]; valued: Array<ReturnType<typeof storedCurveRow>> };
}

export interface WalletReadOptions {
  nowMs: number;
  curveDays: number;
  /** Read the wallets' rows from their snapshots where each has one (the API's single-wallet reads). */
  fromSnapshot?: boolean;
}

/**
 * Statistics of these wallets at current marks: one statement for all of them, and one more for the
 * curves of wallets whose stored curve does not hold (stored-curve.ts).
 */
export async function walletReports(store: AnalyticsStore, wallets: string[], options: WalletReadOptions): Promise<WalletReports> {
  const curves: WalletReports['curves'] = { stored: [], valued: [] };
  if (wallets.length === 0) return { reports: new Map(), markets: new Map(), asOf: { time: null, block: null }, curves };
  const statement = await walletStatement(store, wallets, options);
  const marketRows = marketDataRows(statement.row, statement.today);
  const { markets, quotes } = marketDataFrom(marketRows);
  const data = walletData(statement);
  if (statement.curve) {
    const closeInputs = new Map(marketRows.closes_now.map(([marketId, , inputs]) => [marketId, inputs]));
    const stored = new Map(statement.row.stored_curves.map((c) => [c[0], c]));
    const marks = (marketId: string) => marksKey(closeInputs.get(marketId), markets.get(marketId));
    const witness = (w: { rowsBefore: bigint }) => ({
      fromDayMs: statement.curveFrom,
      todayMs: statement.today,
      rowsBefore: w.rowsBefore,
      marks,
    });
    const stale: string[] = [];
    for (const [wallet, w] of data) {
      const byDay = storedUnrealized(stored.get(wallet), witness(w));
      if (byDay) {
        w.curve!.unrealizedByDay = byDay;
        curves.stored.push(wallet);
      } else stale.push(wallet);
    }
    if (stale.length > 0) {
      const valuedAt = iso(Date.now());
      const valued = await valuedCurves(store, stale, markets, statement.curveFrom, statement.today);
      for (const wallet of stale) {
        const w = data.get(wallet)!;
        const { byDay, held, rowsBefore } = valued.get(wallet) ?? { byDay: new Map<number, bigint>(), held: [], rowsBefore: 0n };
        w.curve!.unrealizedByDay = byDay;
        // Stamped with the rows the states were read with, not the (possibly older or newer) count of
        // this statement's trader_days: a view's rows reach each table in its own step.
        curves.valued.push(storedCurveRow(wallet, byDay, held, witness({ rowsBefore }), valuedAt));
      }
    }
  }
  const reports = new Map<string, { data: WalletData; report: TraderReport }>();
  for (const [wallet, d] of data) reports.set(wallet, { data: d, report: traderReport(d, markets, quotes) });
  return { reports, markets, asOf: asOfFrom(statement.row.progress), curves };
}

/** Categories with valued figures (the valuation pass writes one row per wallet and category it traded). */
export async function valuedCategories(store: AnalyticsStore): Promise<string[]> {
  const rows = await store.query<{ category: string }>('SELECT DISTINCT category FROM trader_category_valuation FINAL ORDER BY category');
  return rows.map((r) => r.category);
}

export interface CategoryLeader {
  wallet: string;
  category: string;
  /** Realized PnL in the category, micro-USDC. */
  realized: bigint;
  won: number;
  lost: number;
  winRatePct: number | null;
  riskScore: number | null;
  lastTradeMs: number | null;
}

/**
 * Up to `limit` wallets with positive realized PnL in `category` and at least `minResolved` won or lost
 * markets there, best first, as of the valuation pass (`trader_category_valuation`, `trader_valuation`).
 */
export async function categoryLeaders(
  store: AnalyticsStore,
  category: string,
  limit: number,
  minResolved: number,
): Promise<CategoryLeader[]> {
  const rows = await store.query<Record<string, string | number | null>>(
    `SELECT c.wallet AS wallet, c.category AS category, toString(c.realized) AS realized, c.won AS won, c.lost AS lost, c.win_rate_pct AS win_rate_pct,
            v.risk_score AS risk_score, toUnixTimestamp64Milli(v.last_trade_at) AS last_ms
       FROM (SELECT * FROM trader_category_valuation FINAL WHERE category = {category:String} AND realized > 0 AND won + lost >= {min:UInt32}) AS c
       LEFT JOIN (SELECT wallet, risk_score, last_trade_at FROM trader_valuation FINAL) AS v ON v.wallet = c.wallet
      ORDER BY c.realized DESC, c.wallet LIMIT {limit:UInt32}
     SETTINGS join_use_nulls = 1`,
    { category, limit, min: minResolved },
  );
  return rows.map((r) => ({
    wallet: String(r.wallet),
    category: String(r.category),
    realized: BigInt(String(r.realized)),
    won: Number(r.won),
    lost: Number(r.lost),
    winRatePct: r.win_rate_pct === null ? null : Number(r.win_rate_pct),
    riskScore: r.risk_score === null ? null : Number(r.risk_score),
    lastTradeMs: r.last_ms === null ? null : Number(r.last_ms),
  }));
}
