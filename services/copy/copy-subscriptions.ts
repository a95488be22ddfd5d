/**
 * Copy subscriptions in the control store, always scoped to the owning account (another account's
 * subscription is indistinguishable from a missing one). Input is checked here beyond what the API
 * document can say: amounts exact at 6 decimals, the sizing rule's own members, ratios in (0, 100].
 */
import { ApiError } from '../http/errors.js';
import { assertUnderAccountCap } from '../control/account-caps.js';
import type { ControlStore } from '../ports/control-store.js';
import type { CopySubscription as CopySubscriptionView } from '../http/types.generated.js';
import { formatScaled, MICRO, parseScaled, servedAmount, servedAmountOrNull } from '../shared/decimal.js';
import { WALLET, CONDITION_ID } from '../shared/ids.js';
import type { RiskLimits, SizingRule } from './copy-rules.js';

type Decimalish = string | number;

export interface CopySubscriptionInput {
  leader_wallet: string;
  sizing: { rule: 'fixed' | 'proportional' | 'capped'; usdc?: Decimalish; ratio?: Decimalish; cap_usdc?: Decimalish };
  limits?: {
    max_per_trade_usdc?: Decimalish | null;
    max_daily_notional_usdc?: Decimalish | null;
    allowed_markets?: string[];
    allowed_categories?: string[];
    max_price?: Decimalish | null;
    min_order_usdc?: Decimalish;
  };
  dry_run?: boolean;
  enabled?: boolean;
}

export type CopySubscriptionPatch = Partial<CopySubscriptionInput>;

/** A stored subscription as the engine uses it. */
export interface CopySubscription {
  id: string;
  accountId: string;
  leaderWallet: string;
  sizing: SizingRule;
  limits: RiskLimits;
  dryRun: boolean;
  enabled: boolean;
  createdAtMs: number;
  updatedAtMs: number;
}

interface Row {
  id: string;
  account_id: string;
  leader_wallet: string;
  sizing_rule: 'fixed' | 'proportional' | 'capped';
  fixed_usdc: string | null;
  ratio: string | null;
  cap_usdc: string | null;
  max_per_trade_usdc: string | null;
  max_daily_notional_usdc: string | null;
  allowed_markets: string[];
  allowed_categories: string[];
  max_price: string | null;
  min_order_usdc: string;
  dry_run: boolean;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id::text AS id, account_id::text AS account_id, leader_wallet, sizing_rule, fixed_usdc::text AS fixed_usdc,
  ratio::text AS ratio, cap_usdc::text AS cap_usdc, max_per_trade_usdc::text AS max_per_trade_usdc,
  max_daily_notional_usdc::text AS max_daily_notional_usdc, allowed_markets, allowed_categories, max_price::text AS max_price,
  min_order_usdc::text AS min_order_usdc, dry_run, enabled, created_at, updated_at`;

const MAX_LIST = 100;
const MAX_USDC = 10_000_000n * MICRO;
const MAX_RATIO = 100n * MICRO;

function amount(name: string, value: Decimalish | null | undefined, opts: { max: bigint; allowZero?: boolean }): bigint | null {
  if (value === undefined || value === null) return null;
  const parsed = parseScaled(value);
  if (parsed === null) throw ApiError.badRequest(`${name}: not an exact decimal with at most 6 decimals`);
  if (parsed < 0n || (!opts.allowZero && parsed === 0n)) throw ApiError.badRequest(`${name}: must be greater than 0`);
  if (parsed > opts.max) throw ApiError.badRequest(`${name}: must be at most ${formatScaled(opts.max)}`);
  return parsed;
}

function required(name: string, value: bigint | null): bigint {
  if (value === null) throw ApiError.badRequest(`${name}: required for this sizing rule`);
  return value;
}

function sizingOf(input: CopySubscriptionInput['sizing']): SizingRule {
  const usdc = amount('sizing.usdc', input.usdc, { max: MAX_USDC });
  const ratio = amount('sizing.ratio', input.ratio, { max: MAX_RATIO });
  const cap = amount('sizing.cap_usdc', input.cap_usdc, { max: MAX_USDC });
  switch (input.rule) {
    case 'fixed':
      if (ratio !== null || cap !== null) throw ApiError.badRequest('sizing: fixed takes only usdc');
      return { rule: 'fixed', usdcMicros: required('sizing.usdc', usdc) };
    case 'proportional':
      if (usdc !== null || cap !== null) throw ApiError.badRequest('sizing: proportional takes only ratio');
      return { rule: 'proportional', ratioMicros: required('sizing.ratio', ratio) };
    case 'capped':
      if (usdc !== null) throw ApiError.badRequest('sizing: capped takes ratio and cap_usdc');
      return { rule: 'capped', ratioMicros: required('sizing.ratio', ratio), capMicros: required('sizing.cap_usdc', cap) };
  }
}

function listOf(name: string, values: string[] | undefined, check?: RegExp): string[] {
  const list = [...new Set((values ?? []).map((v) => v.trim().toLowerCase()).filter(Boolean))];
  if (list.length > MAX_LIST) throw ApiError.badRequest(`${name}: at most ${MAX_LIST} entries`);
  if (check) for (const value of list) if (!check.test(value)) throw ApiError.badRequest(`${name}: ${value} is not a condition id`);
  return list;
}

function limitsOf(input: CopySubscriptionInput['limits'] = {}): RiskLimits {
  const maxPrice = amount('limits.max_price', input.max_price, { max: MICRO });
  return {
    maxPerTradeMicros: amount('limits.max_per_trade_usdc', input.max_per_trade_usdc, { max: MAX_USDC }),
    maxDailyNotionalMicros: amount('limits.max_daily_notional_usdc', input.max_daily_notional_usdc, { max: MAX_USDC }),
    allowedMarkets: listOf('limits.allowed_markets', input.allowed_markets, CONDITION_ID),
    allowedCategories: listOf('limits.allowed_categories', input.allowed_categories),
    maxPriceMicros: maxPrice,
    minOrderMicros: amount('limits.min_order_usdc', input.min_order_usdc, { max: MAX_USDC, allowZero: true }) ?? MICRO,
  };
}

function leaderOf(wallet: string): string {
  if (!WALLET.test(wallet)) throw ApiError.badRequest('leader_wallet: not a wallet address (0x + 40 hex)');
  return wallet.toLowerCase();
}

const scaled = (text: string | null): bigint | null => (text === null ? null : parseScaled(text));

function fromRow(row: Row): CopySubscription {
  const sizing: SizingRule =
    row.sizing_rule === 'fixed'
      ? { rule: 'fixed', usdcMicros: scaled(row.fixed_usdc)! }
      : row.sizing_rule === 'proportional'
        ? { rule: 'proportional', ratioMicros: scaled(row.ratio)! }
        : { rule: 'capped', ratioMicros: scaled(row.ratio)!, capMicros: scaled(row.cap_usdc)! };
  return {
    id: row.id,
    accountId: row.account_id,
    leaderWallet: row.leader_wallet,
    sizing,
    limits: {
      maxPerTradeMicros: scaled(row.max_per_trade_usdc),
      maxDailyNotionalMicros: scaled(row.max_daily_notional_usdc),
      allowedMarkets: row.allowed_markets,
      allowedCategories: row.allowed_categories,
      maxPriceMicros: scaled(row.max_price),
      minOrderMicros: scaled(row.min_order_usdc)!,
    },
    dryRun: row.dry_run,
    enabled: row.enabled,
    createdAtMs: new Date(row.created_at).getTime(),
    updatedAtMs: new Date(row.updated_at).getTime(),
  };
}

function sizingColumns(sizing: SizingRule): [string, string | null, string | null, string | null] {
  switch (sizing.rule) {
    case 'fixed':
      return ['fixed', formatScaled(sizing.usdcMicros), null, null];
    case 'proportional':
      return ['proportional', null, formatScaled(sizing.ratioMicros), null];
    case 'capped':
      return ['capped', null, formatScaled(sizing.ratioMicros), formatScaled(sizing.capMicros)];
  }
}

const orNull = (value: bigint | null) => (value === null ? null : formatScaled(value));

export class CopySubscriptions {
  constructor(
    private readonly db: ControlStore,
    private readonly clock: () => number = Date.now,
    /** Subscriptions one account may keep (COPY_SUBSCRIPTIONS_PER_ACCOUNT); unlimited without. */
    private readonly perAccount = Number.POSITIVE_INFINITY,
  ) {}

  async create(accountId: string, input: CopySubscriptionInput): Promise<CopySubscription> {
    const leader = leaderOf(input.leader_wallet);
    const sizing = sizingOf(input.sizing);
    const limits = limitsOf(input.limits);
    const now = new Date(this.clock());
    const [row] = await this.db.transaction(async (tx) => {
      await assertUnderAccountCap(tx, accountId, {
        table: 'copy_subscriptions',
        limit: this.perAccount,
        parameter: 'COPY_SUBSCRIPTIONS_PER_ACCOUNT',
        what: 'copy subscriptions',
      });
      return tx.query<Row>(
        `INSERT INTO copy_subscriptions (account_id, leader_wallet, sizing_rule, fixed_usdc, ratio, cap_usdc, max_per_trade_usdc,
          max_daily_notional_usdc, allowed_markets, allowed_categories, max_price, min_order_usdc, dry_run, enabled, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15) RETURNING ${COLUMNS}`,
        [accountId, leader, ...sizingColumns(sizing), ...limitValues(limits), input.dry_run ?? true, input.enabled ?? true, now],
      );
    });
    return fromRow(row!);
  }

  async get(accountId: string, id: string): Promise<CopySubscription | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM copy_subscriptions WHERE id = $1 AND account_id = $2`, [id, accountId]);
    return row ? fromRow(row) : null;
  }

  /** Oldest first; `afterId` continues a listing. */
  async list(accountId: string, afterId: string | null, limit: number): Promise<CopySubscription[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM copy_subscriptions WHERE account_id = $1 AND ($2::bigint IS NULL OR id > $2::bigint) ORDER BY id LIMIT $3`,
      [accountId, afterId, limit],
    );
    return rows.map(fromRow);
  }

  /** A patch replaces the members it names; `sizing` and `limits` are replaced whole when given. */
  async update(accountId: string, id: string, patch: CopySubscriptionPatch): Promise<CopySubscription | null> {
    const current = await this.get(accountId, id);
    if (!current) return null;
    const leader = patch.leader_wallet === undefined ? current.leaderWallet : leaderOf(patch.leader_wallet);
    const sizing = patch.sizing === undefined ? current.sizing : sizingOf(patch.sizing);
    const limits = patch.limits === undefined ? current.limits : limitsOf(patch.limits);
    const [row] = await this.db.query<Row>(
      `UPDATE copy_subscriptions SET leader_wallet = $3, sizing_rule = $4, fixed_usdc = $5, ratio = $6, cap_usdc = $7,
          max_per_trade_usdc = $8, max_daily_notional_usdc = $9, allowed_markets = $10, allowed_categories = $11, max_price = $12,
          min_order_usdc = $13, dry_run = $14, enabled = $15, updated_at = $16
        WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
      [
        id,
        accountId,
        leader,
        ...sizingColumns(sizing),
        ...limitValues(limits),
        patch.dry_run ?? current.dryRun,
        patch.enabled ?? current.enabled,
        new Date(this.clock()),
      ],
    );
    return row ? fromRow(row) : null;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    if (!/^\d{1,18}$/.test(id)) return false;
    const rows = await this.db.query('DELETE FROM copy_subscriptions WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId]);
    return rows.length > 0;
  }

  /** Enabled subscriptions following any of `wallets` (lower-case). */
  async following(wallets: string[]): Promise<CopySubscription[]> {
    if (wallets.length === 0) return [];
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM copy_subscriptions WHERE enabled AND leader_wallet = ANY($1::text[])`, [
      wallets,
    ]);
    return rows.map(fromRow);
  }

  /** Every followed wallet (the engine's cheap pre-filter). */
  async leaders(): Promise<Set<string>> {
    const rows = await this.db.query<{ leader_wallet: string }>('SELECT DISTINCT leader_wallet FROM copy_subscriptions WHERE enabled');
    return new Set(rows.map((r) => r.leader_wallet));
  }
}

function limitValues(limits: RiskLimits): unknown[] {
  return [
    orNull(limits.maxPerTradeMicros),
    orNull(limits.maxDailyNotionalMicros),
    limits.allowedMarkets,
    limits.allowedCategories,
    orNull(limits.maxPriceMicros),
    formatScaled(limits.minOrderMicros),
  ];
}

/** The API view (api/openapi.yaml CopySubscription): amounts as served numbers (servedAmount). */
export function subscriptionView(s: CopySubscription): CopySubscriptionView {
  const sizing =
    s.sizing.rule === 'fixed'
      ? { rule: 'fixed' as const, usdc: servedAmount(s.sizing.usdcMicros) }
      : s.sizing.rule === 'proportional'
        ? { rule: 'proportional' as const, ratio: servedAmount(s.sizing.ratioMicros) }
        : { rule: 'capped' as const, ratio: servedAmount(s.sizing.ratioMicros), cap_usdc: servedAmount(s.sizing.capMicros) };
  return {
    id: Number(s.id),
    leader_wallet: s.leaderWallet,
    sizing,
    limits: {
      max_per_trade_usdc: servedAmountOrNull(s.limits.maxPerTradeMicros),
      max_daily_notional_usdc: servedAmountOrNull(s.limits.maxDailyNotionalMicros),
      allowed_markets: s.limits.allowedMarkets,
      allowed_categories: s.limits.allowedCategories,
      max_price: servedAmountOrNull(s.limits.maxPriceMicros),
      min_order_usdc: servedAmount(s.limits.minOrderMicros),
    },
    dry_run: s.dryRun,
    enabled: s.enabled,
    created_at: new Date(s.createdAtMs).toISOString(),
    updated_at: new Date(s.updatedAtMs).toISOString(),
  };
}
