/**
 * Saved strategies (`strategy_lab`), per account in the control store. A strategy is a
 * price_threshold rule on a set of markets (the backtest's: the YES price moved more than
 * `change_pct` within `window_minutes`; `momentum` follows the move, `reversion` fades it). When it is
 * saved, it is backtested over the 30 days before (GET /backtest with its parameters): `confidence` =
 * won / (won + lost) of that backtest (0 when no position closed), `edge` = its net result / what it
 * invested (buy notional plus fees), both to 6 decimals. The copy engine evaluates enabled strategies
 * on every trade and emits strategy.signal (services/copy/strategy-signals.ts).
 */
import { ApiError } from '../http/errors.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { type AccountCap, assertUnderAccountCap } from '../control/account-caps.js';
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';
import { formatScaled, parseScaled, servedAmount } from '../shared/decimal.js';
import { type BacktestSettings, parseBacktest, runBacktest } from './backtest/backtest-service.js';

export interface StrategyInput {
  name: string;
  market_ids: string[];
  change_pct?: number;
  window_minutes?: number;
  mode?: 'momentum' | 'reversion';
  hold_hours?: number | null;
  order_usdc?: string | number;
  enabled?: boolean;
}

interface StrategyConfigJson {
  market_ids: string[];
  change_pct: number;
  window_minutes: number;
  mode: 'momentum' | 'reversion';
  hold_hours: number | null;
  order_usdc: string;
}

export interface Strategy {
  id: string;
  accountId: string;
  name: string;
  kind: 'price_threshold';
  config: StrategyConfigJson;
  edge: number;
  confidence: number;
  backtest: Record<string, unknown> | null;
  enabled: boolean;
  createdAtMs: number;
  updatedAtMs: number;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  kind: 'price_threshold';
  config: StrategyConfigJson;
  edge: string;
  confidence: string;
  backtest: Record<string, unknown> | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id::text AS id, account_id::text AS account_id, name, kind, config, edge::text AS edge, confidence::text AS confidence,
  backtest, enabled, created_at, updated_at`;
const BACKTEST_DAYS = 30;
const DAY_MS = 86_400_000;

function fromRow(r: Row): Strategy {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    kind: r.kind,
    config: r.config,
    edge: Number(r.edge),
    confidence: Number(r.confidence),
    backtest: r.backtest,
    enabled: r.enabled,
    createdAtMs: new Date(r.created_at).getTime(),
    updatedAtMs: new Date(r.updated_at).getTime(),
  };
}

export class Strategies {
  private readonly cap: AccountCap;

  constructor(
    private readonly db: ControlStore,
    private readonly store: AnalyticsStore,
    private readonly settings: BacktestSettings,
    private readonly clock: () => number = Date.now,
    /** Strategies one account may keep (STRATEGIES_PER_ACCOUNT); unlimited without. */
    perAccount = Number.POSITIVE_INFINITY,
  ) {
    this.cap = { table: 'strategies', limit: perAccount, parameter: 'STRATEGIES_PER_ACCOUNT', what: 'strategies' };
  }

  /** Validates the input (through the backtest's own parser) and backtests it over the last 30 days. */
  private async judge(input: StrategyInput) {
    const name = input.name?.trim();
    if (!name) throw ApiError.badRequest('name: required');
    const now = this.clock();
    const run = parseBacktest(
      {
        strategy: 'price_threshold',
        market_ids: input.market_ids,
        change_pct: input.change_pct,
        window_minutes: input.window_minutes,
        mode: input.mode,
        hold_hours: input.hold_hours,
        order_usdc: input.order_usdc,
        from: new Date(now - BACKTEST_DAYS * DAY_MS).toISOString(),
        to: new Date(now).toISOString(),
      },
      now,
    );
    if (run.config.kind !== 'price_threshold') throw new Error('unreachable');
    const config: StrategyConfigJson = {
      market_ids: run.config.marketIds,
      change_pct: run.config.changePct,
      window_minutes: run.config.windowMs / 60_000,
      mode: run.config.mode,
      hold_hours: run.config.holdMs === null ? null : run.config.holdMs / 3_600_000,
      order_usdc: formatScaled(run.config.orderMicros),
    };
    const result = await runBacktest(this.store, run, this.settings);
    const s = result.summary;
    const closed = s.won + s.lost;
    const invested = result.trades
      .filter((t) => t.side === 'buy')
      .reduce((sum, t) => sum + parseScaled(t.notional_usdc)! + parseScaled(t.fee_usdc)!, 0n);
    const pnl = parseScaled(s.final_equity_usdc)! - parseScaled(result.starting_cash_usdc)!;
    const edge = invested > 0n ? Number(formatScaled((pnl * 1_000_000n) / invested)) : 0;
    const confidence = closed === 0 ? 0 : Math.round((s.won / closed) * 1e6) / 1e6;
    const backtest = { from: result.from, to: result.to, ...s };
    return { name, config, edge, confidence, backtest };
  }

  async create(accountId: string, input: StrategyInput): Promise<Strategy> {
    // Checked before the backtest too, so an account at its cap spends no engine time.
    await this.db.transaction((tx) => assertUnderAccountCap(tx, accountId, this.cap));
    const judged = await this.judge(input);
    const now = new Date(this.clock());
    const [row] = await this.db.transaction(async (tx) => {
      await assertUnderAccountCap(tx, accountId, this.cap);
      return tx.query<Row>(
        `INSERT INTO strategies (account_id, name, kind, config, edge, confidence, backtest, enabled, created_at, updated_at)
       VALUES ($1, $2, 'price_threshold', $3, $4, $5, $6, $7, $8, $8) RETURNING ${COLUMNS}`,
        [
          accountId,
          judged.name,
          JSON.stringify(judged.config),
          judged.edge,
          judged.confidence,
          JSON.stringify(judged.backtest),
          input.enabled ?? true,
          now,
        ],
      );
    });
    return fromRow(row!);
  }

  async get(accountId: string, id: string): Promise<Strategy | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM strategies WHERE id = $1 AND account_id = $2`, [id, accountId]);
    return row ? fromRow(row) : null;
  }

  async list(accountId: string, afterId: string | null, limit: number): Promise<Strategy[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM strategies WHERE account_id = $1 AND ($2::bigint IS NULL OR id > $2::bigint) ORDER BY id LIMIT $3`,
      [accountId, afterId, limit],
    );
    return rows.map(fromRow);
  }

  /** Replaces the rule (and backtests it again); `enabled` alone only switches it. */
  async update(accountId: string, id: string, patch: Partial<StrategyInput>): Promise<Strategy | null> {
    const current = await this.get(accountId, id);
    if (!current) return null;
    const ruleChanged = Object.keys(patch).some((k) => k !== 'enabled');
    const judged = ruleChanged
      ? await this.judge({
          name: patch.name ?? current.name,
          market_ids: patch.market_ids ?? current.config.market_ids,
          change_pct: patch.change_pct ?? current.config.change_pct,
          window_minutes: patch.window_minutes ?? current.config.window_minutes,
          mode: patch.mode ?? current.config.mode,
          hold_hours: patch.hold_hours === undefined ? current.config.hold_hours : patch.hold_hours,
          order_usdc: patch.order_usdc ?? current.config.order_usdc,
        })
      : { name: current.name, config: current.config, edge: current.edge, confidence: current.confidence, backtest: current.backtest };
    const [row] = await this.db.query<Row>(
      `UPDATE strategies SET name = $3, config = $4, edge = $5, confidence = $6, backtest = $7, enabled = $8, updated_at = $9
        WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
      [
        id,
        accountId,
        judged.name,
        JSON.stringify(judged.config),
        judged.edge,
        judged.confidence,
        JSON.stringify(judged.backtest),
        patch.enabled ?? current.enabled,
        new Date(this.clock()),
      ],
    );
    return row ? fromRow(row) : null;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    if (!/^\d{1,18}$/.test(id)) return false;
    return (await this.db.query('DELETE FROM strategies WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0;
  }
}

/** Every enabled strategy (the engine evaluates them on each trade batch). */
export async function enabledStrategies(db: SqlExecutor): Promise<Strategy[]> {
  return (await db.query<Row>(`SELECT ${COLUMNS} FROM strategies WHERE enabled ORDER BY id`)).map(fromRow);
}

/** A saved backtest summary as served: rows saved before amounts were served as numbers hold decimal text. */
function servedSummary(summary: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(summary).map(([key, value]) => [key, key.endsWith('_usdc') && typeof value === 'string' ? servedAmount(value) : value]),
  );
}

export function strategyView(s: Strategy) {
  return {
    id: Number(s.id),
    name: s.name,
    signal_type: 'strategy_lab' as const,
    kind: s.kind,
    config: { ...s.config, order_usdc: servedAmount(s.config.order_usdc) },
    edge: s.edge,
    confidence: s.confidence,
    backtest: s.backtest === null ? null : servedSummary(s.backtest),
    enabled: s.enabled,
    created_at: new Date(s.createdAtMs).toISOString(),
    updated_at: new Date(s.updatedAtMs).toISOString(),
  };
}
