/**
 * Trade intents in the control store: one row per (copy subscription, leader fill), whatever was
 * decided. Its id is the events' trade_intent_id. The day's copied notional and the copied holding
 * of a token are sums over these rows (the service never sees the follower's real fills: orders are
 * placed by the local executor, so holdings are what the intents asked for).
 */
import type { SqlExecutor } from '../ports/control-store.js';
import type { CopyIntent as CopyIntentView } from '../http/types.generated.js';
import { formatScaled, parseScaled, servedAmount, servedAmountOrNull } from '../shared/decimal.js';
import { DAY_MS } from '../shared/time.js';
import type { LeaderFill } from './leader-fill.js';

export interface NewIntent {
  subscriptionId: string;
  accountId: string;
  fill: LeaderFill;
  childMicros: bigint | null;
  childSharesMicros: bigint | null;
  status: 'submitted' | 'dry_run' | 'blocked';
  reason: string | null;
  createdAtMs: number;
}

export interface IntentRecord {
  id: string;
  copy_subscription_id: string;
  leader_wallet: string;
  leader_trade_id: string;
  leader_origin: 'chain' | 'data_api';
  market_id: string;
  market_title: string;
  asset_id: string;
  outcome: string;
  side: 'buy' | 'sell';
  leader_price: string;
  leader_size_usdc: string;
  child_size_usdc: string | null;
  child_shares: string | null;
  status: 'submitted' | 'dry_run' | 'blocked';
  reason: string | null;
  source: string;
  leader_filled_at: Date;
  created_at: Date;
}

const INTENT_INSERT_COLUMNS = `copy_subscription_id, account_id, fill_key, leader_wallet, leader_trade_id, leader_origin, market_id,
  market_title, asset_id, outcome, side, leader_price, leader_size_usdc, child_size_usdc, child_shares, status, reason, source,
  leader_filled_at, created_at`;
const INTENT_INSERT_WIDTH = 20;

function intentParameters(intent: NewIntent): unknown[] {
  const f = intent.fill;
  return [
    intent.subscriptionId,
    intent.accountId,
    f.key,
    f.wallet,
    f.tradeId,
    f.origin,
    f.marketId,
    f.marketTitle,
    f.assetId,
    f.outcome,
    f.side,
    formatScaled(f.priceMicros),
    formatScaled(f.usdcMicros),
    intent.childMicros === null ? null : formatScaled(intent.childMicros),
    intent.childSharesMicros === null ? null : formatScaled(intent.childSharesMicros),
    intent.status,
    intent.reason,
    f.source,
    new Date(f.timestampMs),
    new Date(intent.createdAtMs),
  ];
}

/**
 * Inserts the intents in one statement, skipping each subscription that already decided on its fill;
 * returns the new intent ids by subscription id (a subscription missing from the map had decided).
 * At most one intent per subscription and fill (the unique key), as the engine decides them.
 */
export async function insertIntents(db: SqlExecutor, intents: readonly NewIntent[]): Promise<Map<string, string>> {
  if (intents.length === 0) return new Map();
  const rows = intents.map(
    (_, row) => `(${Array.from({ length: INTENT_INSERT_WIDTH }, (_, column) => `$${row * INTENT_INSERT_WIDTH + column + 1}`).join(', ')})`,
  );
  const inserted = await db.query<{ id: string; subscription_id: string }>(
    `INSERT INTO copy_trade_intents (${INTENT_INSERT_COLUMNS}) VALUES ${rows.join(', ')}
     ON CONFLICT (copy_subscription_id, fill_key) DO NOTHING RETURNING id::text AS id, copy_subscription_id::text AS subscription_id`,
    intents.flatMap(intentParameters),
  );
  return new Map(inserted.map((row) => [row.subscription_id, row.id]));
}

export interface CopiedFigures {
  /** Copied buy notional (submitted and dry-run intents) in the UTC day of `nowMs`. */
  spentTodayMicros: bigint;
  /** Copied shares of the token held: copied buys minus copied sells (0 when no token was asked for). */
  heldSharesMicros: bigint;
}

/**
 * The figures copy rules need for each subscription, in one query for all of them (a fill followed
 * by many subscriptions costs one read, not two per subscription). `assetId` null skips holdings
 * (a buy does not need them).
 */
export async function copiedFigures(
  db: SqlExecutor,
  subscriptionIds: readonly string[],
  assetId: string | null,
  nowMs: number,
): Promise<Map<string, CopiedFigures>> {
  const dayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const rows = await db.query<{ id: string; spent: string; held: string }>(
    `SELECT copy_subscription_id::text AS id,
            coalesce(sum(child_size_usdc) FILTER (WHERE side = 'buy' AND created_at >= $2 AND created_at < $3), 0)::text AS spent,
            coalesce(sum(CASE WHEN side = 'buy' THEN child_shares ELSE -child_shares END) FILTER (WHERE asset_id = $4), 0)::text AS held
       FROM copy_trade_intents
      WHERE copy_subscription_id = ANY($1::bigint[]) AND status <> 'blocked'
        AND ((side = 'buy' AND created_at >= $2 AND created_at < $3) OR asset_id = $4)
      GROUP BY copy_subscription_id`,
    [subscriptionIds, new Date(dayStart), new Date(dayStart + DAY_MS), assetId],
  );
  const figures = new Map<string, CopiedFigures>(subscriptionIds.map((id) => [id, { spentTodayMicros: 0n, heldSharesMicros: 0n }]));
  for (const row of rows) {
    figures.set(row.id, { spentTodayMicros: parseScaled(row.spent) ?? 0n, heldSharesMicros: parseScaled(row.held) ?? 0n });
  }
  return figures;
}

const INTENT_COLUMNS = `id::text AS id, copy_subscription_id::text AS copy_subscription_id, leader_wallet, leader_trade_id, leader_origin,
  market_id, market_title, asset_id, outcome, side, leader_price::text AS leader_price, leader_size_usdc::text AS leader_size_usdc,
  child_size_usdc::text AS child_size_usdc, child_shares::text AS child_shares, status, reason, source, leader_filled_at, created_at`;

/** An account's intents, newest first; `beforeId` continues a listing. */
export function listIntents(
  db: SqlExecutor,
  accountId: string,
  filters: { subscriptionId?: string; status?: string },
  beforeId: string | null,
  limit: number,
): Promise<IntentRecord[]> {
  return db.query<IntentRecord>(
    `SELECT ${INTENT_COLUMNS} FROM copy_trade_intents
      WHERE account_id = $1 AND ($2::bigint IS NULL OR copy_subscription_id = $2::bigint) AND ($3::text IS NULL OR status = $3)
        AND ($4::bigint IS NULL OR id < $4::bigint)
      ORDER BY id DESC LIMIT $5`,
    [accountId, filters.subscriptionId ?? null, filters.status ?? null, beforeId, limit],
  );
}

/** The API view (api/openapi.yaml CopyIntent). */
export function intentView(r: IntentRecord): CopyIntentView {
  const amount = servedAmountOrNull;
  return {
    trade_intent_id: Number(r.id),
    copy_subscription_id: Number(r.copy_subscription_id),
    leader_wallet: r.leader_wallet,
    leader_trade_id: r.leader_trade_id,
    leader_origin: r.leader_origin as CopyIntentView['leader_origin'],
    market_id: r.market_id,
    market_title: r.market_title,
    asset_id: r.asset_id,
    outcome: r.outcome,
    leader_price: servedAmount(r.leader_price),
    leader_size_usdc: servedAmount(r.leader_size_usdc),
    child_size_usdc: amount(r.child_size_usdc),
    child_shares: amount(r.child_shares),
    side: r.side as CopyIntentView['side'],
    status: r.status as CopyIntentView['status'],
    reason: r.reason,
    source: r.source as CopyIntentView['source'],
    leader_filled_at: new Date(r.leader_filled_at).toISOString(),
    created_at: new Date(r.created_at).toISOString(),
  };
}
