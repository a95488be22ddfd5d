/** GET /copy-picks: the latest run of the picks job for a window, eligible leaders best first (keyset by score, topic, wallet). */
import { queryOf } from '../../http/query.js';
import { Router } from 'express';
import { keysetPage } from '../../http/keyset.js';
import type { CopyPick, CopyPicksStatus } from '../../http/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { servedAmount } from '../../shared/decimal.js';
import { isoOrNull } from '../../shared/time.js';

interface PickRow {
  window: string;
  topic: string;
  wallet: string;
  score: number;
  resolved: number;
  realized_pnl_usdc: number;
  win_rate_pct: number | null;
  won: number;
  lost: number;
  risk_score: number;
  last_fill_ms: string | null;
  fills_in_window: number;
  wash_share: number;
  copier_roi_pct: number;
  follower_pnl_usdc: string;
  invested_usdc: string;
  fees_usdc: string;
  slippage_usdc: string;
  copied_trades: number;
  book_fills: number;
  impact_fills: number;
  order_usdc: string;
  delay_seconds: number;
  open_positions: string;
  computed_ms: string;
}

function presentPick(row: PickRow): CopyPick {
  return {
    wallet: row.wallet,
    topic: row.topic,
    window: row.window as CopyPick['window'],
    score: row.score,
    why: {
      realized_pnl_usdc: servedAmount(row.realized_pnl_usdc),
      win_rate_pct: row.win_rate_pct,
      won: Number(row.won),
      lost: Number(row.lost),
      resolved_markets: Number(row.resolved),
      risk_score: row.risk_score,
      last_fill_at: isoOrNull(row.last_fill_ms),
      fills_in_window: Number(row.fills_in_window),
      wash_share: row.wash_share,
    },
    copier_roi: {
      roi_pct: row.copier_roi_pct,
      follower_pnl_usdc: servedAmount(row.follower_pnl_usdc),
      invested_usdc: servedAmount(row.invested_usdc),
      fees_usdc: servedAmount(row.fees_usdc),
      slippage_usdc: servedAmount(row.slippage_usdc),
      copied_trades: Number(row.copied_trades),
      book_fills: Number(row.book_fills),
      impact_fills: Number(row.impact_fills),
      order_usdc: servedAmount(row.order_usdc),
      delay_seconds: Number(row.delay_seconds),
    },
    open_positions: JSON.parse(row.open_positions),
    computed_at: isoOrNull(row.computed_ms)!,
  };
}

interface PicksQuery {
  window: string;
  /** Categories (case-insensitive); null = every topic. */
  topics: string[] | null;
  minResolved: number;
  after: readonly (string | number)[] | null;
  take: number;
}

/**
 * The latest run: the newest of the run log's and the picks' (stores written before the run log have
 * picks only). A run that found no candidate is the latest, so the previous run's picks are not served.
 */
const LATEST_RUN = `greatest(
  (SELECT max(computed_at) FROM copy_picks_runs),
  (SELECT max(computed_at) FROM copy_picks WHERE window = {window:String}))`;

/** Eligible picks of the latest run of a window, best first. */
function latestPicks(store: AnalyticsStore, q: PicksQuery): Promise<PickRow[]> {
  return store.query<PickRow>(
    `SELECT window, topic, wallet, score, resolved, realized_pnl_usdc, win_rate_pct, won, lost, risk_score,
            toUnixTimestamp64Milli(last_fill_at) AS last_fill_ms, fills_in_window, wash_share, copier_roi_pct, follower_pnl_usdc,
            invested_usdc, fees_usdc, slippage_usdc, copied_trades, book_fills, impact_fills, order_usdc, delay_seconds, open_positions,
            toUnixTimestamp64Milli(computed_at) AS computed_ms
       FROM copy_picks
      WHERE window = {window:String}
        AND computed_at = ${LATEST_RUN}
        AND excluded = '' AND resolved >= {min:UInt32}
        ${q.topics === null ? '' : 'AND lower(topic) IN {topics:Array(String)}'}
        ${q.after ? 'AND (score < {s:Float64} OR (score = {s:Float64} AND (topic, wallet) > ({t:String}, {w:String})))' : ''}
      ORDER BY score DESC, topic, wallet
      LIMIT {take:UInt32}`,
    {
      window: q.window,
      topics: q.topics?.map((t) => t.toLowerCase()) ?? [],
      min: q.minResolved,
      take: q.take,
      ...(q.after ? { s: q.after[0], t: q.after[1], w: q.after[2] } : {}),
    },
  );
}

/** min_resolved when a request names none (COPY_PICKS_MIN_RESOLVED's default). */
const DEFAULT_MIN_RESOLVED = 10;

/** The briefing's picks: the 30-day window's best for the agent's topics (all topics when it has none). */
export async function briefingPicks(
  store: AnalyticsStore,
  topics: string[],
  minResolved = DEFAULT_MIN_RESOLVED,
  take = 5,
): Promise<CopyPick[]> {
  const rows = await latestPicks(store, { window: '30d', topics: topics.length > 0 ? topics : null, minResolved, after: null, take });
  return rows.map(presentPick);
}

/**
 * What the latest run says of a request's window and topic: when it ran, when the next is due, how many
 * candidates it judged and why those not listed were left out; with an empty first page, why it is empty.
 */
async function picksStatus(store: AnalyticsStore, q: Omit<PicksQuery, 'after' | 'take'>, empty: boolean): Promise<CopyPicksStatus> {
  const [run] = await store.query<{ computed_ms: string | null; interval_ms: string | null }>(
    `SELECT toUnixTimestamp64Milli(r) AS computed_ms,
            (SELECT toString(argMax(interval_ms, computed_at)) FROM copy_picks_runs WHERE computed_at = r) AS interval_ms
       FROM (SELECT ${LATEST_RUN} AS r) WHERE r > toDateTime64(0, 3, 'UTC')`,
    { window: q.window },
  );
  const excluded = { below_min_resolved: 0, no_fills_in_window: 0, wash_trading: 0, negative_copier_roi: 0 };
  if (!run?.computed_ms) {
    return { computed_at: null, next_run_at: null, candidates: 0, excluded, empty_reason: empty ? 'not_computed_yet' : null };
  }
  const computedMs = Number(run.computed_ms);
  const counts = await store.query<{ reason: string; n: string }>(
    `SELECT if(resolved < {min:UInt32}, 'below_min_resolved', excluded) AS reason, toString(count()) AS n
       FROM copy_picks
      WHERE window = {window:String} AND computed_at = fromUnixTimestamp64Milli({at:Int64})
        ${q.topics === null ? '' : 'AND lower(topic) IN {topics:Array(String)}'}
      GROUP BY reason`,
    { window: q.window, at: computedMs, min: q.minResolved, topics: q.topics?.map((t) => t.toLowerCase()) ?? [] },
  );
  let candidates = 0;
  for (const { reason, n } of counts) {
    candidates += Number(n);
    if (reason in excluded) excluded[reason as keyof typeof excluded] = Number(n);
  }
  const intervalMs = Number(run.interval_ms ?? 0);
  return {
    computed_at: new Date(computedMs).toISOString(),
    next_run_at: intervalMs > 0 ? new Date(computedMs + intervalMs).toISOString() : null,
    candidates,
    excluded,
    empty_reason: !empty ? null : candidates === 0 ? 'no_candidates' : 'all_excluded',
  };
}

export function copyPickRoutes(store: AnalyticsStore, defaultMinResolved = DEFAULT_MIN_RESOLVED): Router {
  const router = Router();
  router.get('/copy-picks', async (request, response) => {
    const query = queryOf(request, 'getCopyPicks');
    const window = query.window;
    const topic = query.topic ?? null;
    const minResolved = query.min_resolved ?? defaultMinResolved;
    const topics = topic === null ? null : [topic];
    const page = await keysetPage<PickRow, CopyPick>(request, {
      filters: { window, topic: topic?.toLowerCase() ?? null, minResolved },
      shape: ['number', 'string', 'string'],
      defaultLimit: 20,
      fetch: (after, take) => latestPicks(store, { window, topics, minResolved, after, take }),
      keyOf: (row) => [row.score, row.topic, row.wallet],
      present: presentPick,
    });
    // Only a first page can be empty for a reason; a later one is the end of the list.
    const empty = page.data.length === 0 && query.cursor === undefined;
    response.json({ ...page, status: await picksStatus(store, { window, topics, minResolved }, empty) });
  });
  return router;
}
