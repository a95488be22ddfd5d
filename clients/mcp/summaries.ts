/**
 * One-line text summaries beside a tool's structured result, for hosts and models that read text
 * first: what came back, the figures a person would look at, and how to get the next page.
 */
import type { Pagination } from '../ts/src/api.generated.js';
import type { ToolName } from './tools.js';

type Row = Record<string, unknown>;

// Money is a JSON number rounded to micro-USDC (api/openapi.yaml, Conventions); read as whole dollars here.
const money = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) ? `$${Math.round(value).toLocaleString('en-US')}` : String(value);
const price = (value: unknown) => (typeof value === 'number' ? value.toFixed(3) : 'n/a');

function listLine(tool: ToolName, rows: Row[]): string {
  const top = rows.slice(0, 3);
  switch (tool) {
    case 'search_markets':
      return top.map((m) => `${m.title} (YES ${price(m.yes_price)}, 24h ${money(m.volume_24h_usdc)})`).join('; ');
    case 'get_leaderboard':
    case 'browse_traders':
      return top.map((t) => `${t.wallet} PnL ${money(t.total_realized_pnl)}`).join('; ');
    case 'get_recent_trades':
      return top.map((t) => `${t.side} ${t.outcome} ${money(t.size_usdc)} @ ${price(t.price)} in ${t.market_title}`).join('; ');
    case 'get_copy_picks':
      return top
        .map((p) => {
          const roi = (p.copier_roi ?? {}) as Row;
          return `${p.wallet} in ${p.topic} (score ${typeof p.score === 'number' ? p.score.toFixed(2) : 'n/a'}, copier ROI ${roi.roi_pct ?? 'n/a'}%)`;
        })
        .join('; ');
    default:
      return '';
  }
}

/** What a trader's figures cover, in words: a model must not read partial figures as a whole history. */
function coverageNote(value: unknown): string {
  const coverage = (value ?? {}) as Row;
  if (coverage.complete) return 'whole history';
  const since = coverage.from_time ? `complete since ${coverage.from_time}` : 'Data API trades only (no chain coverage)';
  return coverage.wallet_predates ? `${since}; the wallet was active before, so its history is partial` : since;
}

function objectLine(tool: ToolName, data: Row): string {
  switch (tool) {
    case 'get_market':
      return `${data.title}: YES ${price(data.yes_price)}, NO ${price(data.no_price)}, 24h volume ${money(data.volume_24h_usdc)}, status ${data.status}`;
    case 'get_trader_stats': {
      const lifetime = (data.lifetime ?? {}) as Row;
      return `${data.wallet}: realized PnL ${money(lifetime.total_realized_pnl)}, win rate ${lifetime.win_rate_pct ?? 'n/a'}%, risk ${data.risk_score}; ${coverageNote(data.coverage)}`;
    }
    case 'get_trader_pnl': {
      const points = (data.points ?? []) as Row[];
      return `${data.wallet}: ${points.length} days, total PnL now ${money(points.at(-1)?.total)}`;
    }
    case 'get_orderbook': {
      const yes = (data.yes ?? {}) as Row;
      const top = `${data.title}: best bid ${price(yes.best_bid)}, best ask ${price(yes.best_ask)}, spread ${yes.spread_bps ?? 'n/a'} bps`;
      if (!data.at) return top;
      // A rebuilt book says how sure it is: capture gaps make it the last known book, not the book at `at`.
      const gaps = ((data.outcomes ?? []) as Row[]).reduce((n, o) => n + ((o.gaps ?? []) as unknown[]).length, 0);
      return `${top} at ${data.at}${gaps > 0 ? ` (${gaps} capture gap${gaps === 1 ? '' : 's'}: see gaps)` : ''}`;
    }
    case 'get_market_oi':
      return `open interest ${money(data.open_interest_usdc)} as of ${data.as_of}`;
    case 'get_market_holders':
      return `${((data.outcomes ?? []) as Row[]).map((o) => `${o.outcome}: ${((o.holders ?? []) as Row[]).length} holders`).join(', ')}`;
    case 'get_briefing': {
      const signals = (data.signals ?? {}) as Row;
      const paper = (data.paper ?? {}) as Row;
      const account = (paper.account ?? {}) as Row;
      const alerts = (data.risk_alerts ?? []) as Row[];
      const picks = (data.copy_picks ?? {}) as Row;
      return [
        `${((signals.items ?? []) as unknown[]).length} new signals${signals.has_more ? ' (more: pass since=next_since)' : ''}`,
        `paper equity ${money(account.equity_usdc)}, cash ${money(account.cash_usdc)}, ${((paper.positions ?? []) as unknown[]).length} positions, ${((paper.open_orders ?? []) as unknown[]).length} open orders`,
        `${alerts.length} risk alerts${alerts.length > 0 ? ` (${alerts.map((a) => a.kind).join(', ')})` : ''}`,
        picks.available
          ? `${((picks.items ?? []) as unknown[]).length} copy picks`
          : `copy picks unavailable${picks.reason ? `: ${picks.reason}` : ''}`,
        `poll again in ${data.next_poll_seconds} s`,
      ].join('; ');
    }
    case 'get_api_usage':
      return `tier ${data.tier}: ${data.used}/${data.quota} calls used today, ${data.remaining} left, credits ${data.credits_balance}`;
    default:
      return Object.keys(data).slice(0, 8).join(', ');
  }
}

export function summarize(tool: ToolName, data: unknown, pagination?: Pagination): string {
  if (Array.isArray(data)) {
    const detail = listLine(tool, data as Row[]);
    const more = pagination?.has_more
      ? ` More available: call again with cursor="${pagination.next_cursor}".`
      : pagination
        ? ' Last page.'
        : '';
    if (tool === 'get_market_ohlcv' && data.length > 0) {
      const last = data.at(-1) as Row;
      return `${data.length} candles; last ${last.bucket_start} close ${price(last.close)}, volume ${money(last.volume_usdc)}.`;
    }
    return `${data.length} result${data.length === 1 ? '' : 's'}${detail ? `: ${detail}` : ''}.${more}`;
  }
  if (data && typeof data === 'object') return `${objectLine(tool, data as Row)}.`;
  return String(data);
}
