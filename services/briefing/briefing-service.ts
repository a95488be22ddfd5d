/**
 * GET /briefing: the agent heartbeat (docs/SANDBOX.md). Signals come from the briefing_signals feed
 * the sandbox processor records (after the agent's cursor, narrowed to its topics and the markets it
 * holds); the paper state is valued at the live books; risk alerts flag held markets about to end or
 * awaiting settlement, and drawdown from the epoch's peak equity. A briefing without `since` moves the
 * agent's stored cursors (signals, fills, settlements); with `since` it is a pure read.
 */
import { ApiError } from '../http/errors.js';
import type { Briefing, BriefingSignal, RiskAlert } from '../http/types.generated.js';
import type { ControlStore } from '../ports/control-store.js';
import { FILL_COLUMNS, openOrdersOf, SETTLEMENT_COLUMNS, toFill, toSettlement } from '../paper/paper-store.js';
import type { PaperService } from '../paper/paper-service.js';
import { fillView, orderView, settlementView } from '../paper/views.js';
import { iso, isoOrNull } from '../shared/time.js';

export interface BriefingSettings {
  pollSeconds: { normal: number; fast: number; idle: number };
  resolvingSoonHours: number;
  drawdownAlertPct: number;
  /** Topics of the trades and books streams: data_as_of is how far the processor applied them. */
  progressTopics: string[];
}

const FIRST_BRIEFING_LOOKBACK_MS = 3_600_000;
const HOUR_MS = 3_600_000;
const NO_PICKS_REASON = 'No leader qualifies for your topics yet (GET /copy-picks lists the rules).';

interface CursorState {
  topics: string[];
  signal_seq: string;
  fill_seq: string;
  settlement_seq: string;
  last_briefing_at: Date | null;
}

function encodeSince(seq: string): string {
  return `bs_${Buffer.from(JSON.stringify({ v: 1, s: seq })).toString('base64url')}`;
}

function decodeSince(cursor: string): string {
  try {
    const body = JSON.parse(Buffer.from(cursor.replace(/^bs_/, ''), 'base64url').toString('utf8')) as { v?: unknown; s?: unknown };
    if (cursor.startsWith('bs_') && body.v === 1 && typeof body.s === 'string' && /^\d{1,18}$/.test(body.s)) return body.s;
  } catch {
    // falls through to the refusal
  }
  throw ApiError.badRequest('since: not a briefing cursor issued by this API (use signals.next_since)');
}

export async function agentTopics(control: ControlStore, accountId: string): Promise<string[]> {
  const [row] = await control.query<{ topics: string[] }>('SELECT topics FROM agent_briefings WHERE account_id = $1', [accountId]);
  return row?.topics ?? [];
}

export async function setAgentTopics(control: ControlStore, accountId: string, topics: string[]): Promise<string[]> {
  const unique = [...new Set(topics.map((t) => t.trim()).filter(Boolean))];
  await control.query(
    `INSERT INTO agent_briefings (account_id, topics) VALUES ($1, $2) ON CONFLICT (account_id) DO UPDATE SET topics = EXCLUDED.topics`,
    [accountId, unique],
  );
  return unique;
}

export class BriefingService {
  constructor(
    private readonly control: ControlStore,
    private readonly paper: PaperService,
    private readonly settings: BriefingSettings,
    private readonly clock: () => number = Date.now,
    /** The best copy picks for the agent's topics (GET /copy-picks, 30-day window). */
    private readonly copyPicks: (topics: string[]) => Promise<Briefing['copy_picks']['items']> = async () => [],
  ) {}

  async briefing(agent: { accountId: string; name: string }, since: string | undefined, limit: number): Promise<Briefing> {
    const now = this.clock();
    const readState = () =>
      this.control.query<CursorState>(
        `SELECT topics, signal_seq::text AS signal_seq, fill_seq::text AS fill_seq, settlement_seq::text AS settlement_seq, last_briefing_at
           FROM agent_briefings WHERE account_id = $1`,
        [agent.accountId],
      );
    let [state] = await readState();
    if (!state) {
      await this.control.query('INSERT INTO agent_briefings (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [
        agent.accountId,
      ]);
      [state] = await readState();
    }
    const cursor = state!;
    const explicit = since !== undefined;
    let after = explicit ? decodeSince(since) : cursor.signal_seq;
    if (!explicit && cursor.last_briefing_at === null) {
      // A first briefing starts an hour back rather than at the oldest signal kept.
      const [row] = await this.control.query<{ seq: string }>(
        'SELECT coalesce(max(seq), 0)::text AS seq FROM briefing_signals WHERE recorded_at < $1',
        [new Date(now - FIRST_BRIEFING_LOOKBACK_MS)],
      );
      after = row!.seq;
    }

    const valuation = await this.paper.valuation(agent.accountId, 'open');
    const epoch = valuation.account.epoch;
    const heldMarkets = [...new Set(valuation.positions.map((p) => p.market_id))];
    const topics = cursor.topics.map((t) => t.toLowerCase());
    // The feed's high-water mark first: signals filtered out below it are passed over for good, and one
    // recorded while this briefing reads is left for the next.
    const [highWater] = await this.control.query<{ seq: string }>('SELECT coalesce(max(seq), 0)::text AS seq FROM briefing_signals');

    const [signalRows, fillRows, settlementRows, resting, progress] = await Promise.all([
      this.control.query<{
        seq: string;
        kind: BriefingSignal['kind'];
        market_id: string;
        category: string;
        payload: Record<string, unknown>;
        occurred_at: Date;
        recorded_at: Date;
      }>(
        `SELECT seq::text AS seq, kind, market_id, category, payload, occurred_at, recorded_at FROM briefing_signals
          WHERE seq > $1::bigint AND seq <= $5::bigint AND (cardinality($2::text[]) = 0 OR lower(category) = ANY($2::text[]) OR market_id = ANY($3::text[]))
          ORDER BY briefing_signals.seq LIMIT $4`,
        [after, topics, heldMarkets, limit + 1, highWater!.seq],
      ),
      this.control.query(
        `SELECT ${FILL_COLUMNS} FROM paper_fills WHERE account_id = $1 AND epoch = $2 AND seq > $3::bigint ORDER BY paper_fills.seq LIMIT 100`,
        [agent.accountId, epoch, cursor.fill_seq],
      ),
      this.control.query(
        `SELECT ${SETTLEMENT_COLUMNS} FROM paper_settlements WHERE account_id = $1 AND epoch = $2 AND seq > $3::bigint ORDER BY paper_settlements.seq LIMIT 100`,
        [agent.accountId, epoch, cursor.settlement_seq],
      ),
      openOrdersOf(this.control, agent.accountId, epoch, 100),
      this.control.query<{ event_at: Date | null }>(
        'SELECT max(event_at) AS event_at FROM sandbox_progress WHERE topic = ANY($1::text[])',
        [this.settings.progressTopics],
      ),
    ]);
    const hasMore = signalRows.length > limit;
    const served = signalRows.slice(0, limit);
    const nextSeq = hasMore ? served.at(-1)!.seq : BigInt(highWater!.seq) > BigInt(after) ? highWater!.seq : after;
    const fills = fillRows.map(toFill);
    const settlements = settlementRows.map(toSettlement);

    if (!explicit) {
      await this.control.query(
        `UPDATE agent_briefings SET signal_seq = GREATEST(signal_seq, $2::bigint), fill_seq = GREATEST(fill_seq, $3::bigint),
                settlement_seq = GREATEST(settlement_seq, $4::bigint), last_briefing_at = $5 WHERE account_id = $1`,
        [agent.accountId, nextSeq, fills.at(-1)?.seq ?? cursor.fill_seq, settlements.at(-1)?.seq ?? cursor.settlement_seq, new Date(now)],
      );
    }

    const alerts = this.riskAlerts(valuation, now);
    const picks = await this.copyPicks(cursor.topics);
    const endingWithinHour = valuation.positions.some((p) => p.market_end_date !== null && Date.parse(p.market_end_date) - now < HOUR_MS);
    const pollSeconds =
      hasMore || resting.length > 0 || endingWithinHour || alerts.some((a) => a.kind === 'awaiting_settlement')
        ? this.settings.pollSeconds.fast
        : valuation.positions.length === 0 && served.length === 0
          ? this.settings.pollSeconds.idle
          : this.settings.pollSeconds.normal;

    return {
      agent: {
        agent_id: agent.accountId,
        name: agent.name,
        topics: cursor.topics,
        previous_briefing_at: isoOrNull(cursor.last_briefing_at?.getTime()),
      },
      data_as_of: isoOrNull(progress[0]?.event_at ? new Date(progress[0].event_at).getTime() : null),
      generated_at: iso(now),
      copy_picks:
        picks.length > 0 ? { available: true, reason: null, items: picks } : { available: false, reason: NO_PICKS_REASON, items: [] },
      signals: {
        since: after === '0' ? null : encodeSince(after),
        next_since: encodeSince(nextSeq),
        has_more: hasMore,
        items: served.map((row) => ({
          kind: row.kind,
          market_id: row.market_id,
          market_title: String(row.payload.market_title ?? ''),
          category: row.category,
          occurred_at: iso(new Date(row.occurred_at).getTime()),
          recorded_at: iso(new Date(row.recorded_at).getTime()),
          data: row.payload,
        })),
      },
      paper: {
        account: valuation.account,
        positions: valuation.positions,
        open_orders: resting.map((order) => orderView(order)),
        fills_since_last: fills.map(fillView),
        settlements_since_last: settlements.map(settlementView),
      },
      risk_alerts: alerts,
      next_poll_at: iso(now + pollSeconds * 1000),
      next_poll_seconds: pollSeconds,
    };
  }

  private riskAlerts(valuation: Awaited<ReturnType<PaperService['valuation']>>, now: number): RiskAlert[] {
    const alerts: RiskAlert[] = [];
    const soonMs = this.settings.resolvingSoonHours * HOUR_MS;
    for (const position of valuation.positions) {
      const terms = valuation.markets.get(position.market_id);
      if (terms?.resolution) {
        alerts.push({
          kind: 'awaiting_settlement',
          severity: 'info',
          market_id: position.market_id,
          end_date: position.market_end_date,
          message: `${position.market_title}: resolved (${terms.resolution.winningOutcome ?? 'no single winner'}); ${position.shares} ${position.outcome} shares settle shortly`,
        });
        continue;
      }
      const end = position.market_end_date === null ? null : Date.parse(position.market_end_date);
      if (end !== null && end - now <= soonMs)
        alerts.push({
          kind: 'resolving_soon',
          severity: end - now <= HOUR_MS ? 'warning' : 'info',
          market_id: position.market_id,
          end_date: position.market_end_date,
          message: `${position.market_title}: ends ${end <= now ? 'now (past its end date)' : `in ${Math.max(1, Math.round((end - now) / 60_000))} min`}; ${position.shares} ${position.outcome} shares held`,
        });
    }
    const drawdown = valuation.account.drawdown_pct;
    if (drawdown >= this.settings.drawdownAlertPct)
      alerts.push({
        kind: 'drawdown',
        severity: 'warning',
        market_id: null,
        drawdown_pct: drawdown,
        message: `equity ${valuation.account.equity_usdc} USDC is ${drawdown}% below its peak of ${valuation.account.peak_equity_usdc}`,
      });
    return alerts;
  }
}
