/**
 * What the verifier reads: the service's /v1 (a Tier 2 key) and, on a demo, the simulator's /truth.
 * The service's shapes are the API document's (generated); amounts stay as served (numbers in USDC,
 * micro-unit strings).
 */
import type { PnlCurve, Positions, TraderStats } from '../../services/http/types.generated.js';
import type { BoundedHttp } from './http.js';

/** The service's shapes, generated from api/openapi.yaml. */
export type ApiTrader = TraderStats;
export type ApiPositions = Positions;
export type ApiPosition = Positions['positions'][number];
export type ApiCurve = PnlCurve;

/** The simulator's account of one wallet (simulator/truth.ts), micro-units as strings. */
export interface TruthWallet {
  address: string;
  cash_paid_micro: string;
  cash_received_micro: string;
  fees_micro: string;
  /** The cost that left with shares sent to other wallets by ERC-1155 transfer, and came with shares received. */
  transfer_out_cost_micro: string;
  transfer_in_cost_micro: string;
  /** Neg-risk conversions (docs/VERIFY.md: the adapter is their counterparty in the zero sum); absent from truths before them. */
  conversions?: Array<{
    neg_risk_market_id: string;
    amount_micro: string;
    yes_out_micro: string;
    collateral_out_micro: string;
    no_market_ids: string[];
    yes_market_ids: string[];
    cash_market_id: string;
  }>;
  realized_micro: string;
  volume_micro: string;
  trades: number;
  markets_traded: number;
  won: number;
  lost: number;
  realized_by_day: Array<{ date: string; realized_micro: string }>;
  tokens: Array<{
    token_id: string;
    market_id: string;
    outcome_index: number;
    shares_micro: string;
    held_micro: string;
    cost_basis_micro: string;
    /** Shares v1 buys paid to the exchange as fees, and their value at the fill prices (in fees_micro). */
    fee_shares_micro: string;
    fee_shares_value_micro: string;
  }>;
  markets: Array<{
    market_id: string;
    payout: [string, string] | null;
    resolved_at: number | null;
    voided: boolean;
    realized_micro: string;
    cost_basis_micro: string;
    payout_value_micro: string;
    cash_paid_micro: string;
    cash_received_micro: string;
    fees_micro: string;
    both_sides_wallets: boolean;
    /** Voided markets: balances redeemed with an odd number of micro-shares (each keeps half a micro-unit in the CTF). */
    void_odd_redeemed?: number;
  }>;
}

interface Page<T> {
  data: T[];
  pagination?: { has_more: boolean; next_cursor: string | null };
}

export class ServiceApi {
  constructor(
    private readonly http: BoundedHttp,
    private readonly base: string,
    private readonly key: string,
  ) {}

  private url(path: string, query: Record<string, string> = {}): string {
    const url = new URL(`${this.base.replace(/\/$/, '')}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.toString();
  }

  private async one<T>(path: string, query: Record<string, string> = {}): Promise<T | null> {
    const body = await this.http.getJson<{ data: T }>(this.url(path, query), this.key);
    return body ? body.data : null;
  }

  /** Every item of a cursor-paged listing, at most `maxPages` pages (then `truncated`). */
  async pages<T>(path: string, query: Record<string, string>, maxPages: number): Promise<{ items: T[]; truncated: boolean }> {
    const items: T[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < maxPages; page++) {
      const params: Record<string, string> = cursor ? { ...query, cursor } : query;
      const body: Page<T> | null = await this.http.getJson<Page<T>>(this.url(path, params), this.key);
      if (!body) return { items, truncated: false };
      items.push(...body.data);
      if (!body.pagination?.has_more || !body.pagination.next_cursor) return { items, truncated: false };
      cursor = body.pagination.next_cursor;
    }
    return { items, truncated: true };
  }

  health(): Promise<Record<string, unknown> | null> {
    return this.one('/health');
  }

  trader(wallet: string): Promise<ApiTrader | null> {
    return this.one(`/traders/${wallet}`);
  }

  /**
   * Every position of a wallet, open and closed (`status=all`: the closed ones carry the realized PnL of
   * the tokens it no longer holds), page after page (at most `maxPages` of 500). Pages are read one
   * request each, so when they name different data_as_of or do not add up to open_positions +
   * closed_positions (a value moved across the cursor, a page missing), the read answers data_as_of
   * `mixed`, which no other read names: the collector reads again.
   */
  async positions(wallet: string, maxPages = 20): Promise<ApiPositions | null> {
    let first: ApiPositions | null = null;
    let cursor: string | null = null;
    const positions: ApiPositions['positions'] = [];
    for (let page = 0; page < maxPages; page++) {
      const query: Record<string, string> = cursor ? { status: 'all', limit: '500', cursor } : { status: 'all', limit: '500' };
      const body: { data: ApiPositions } | null = await this.http.getJson(this.url(`/positions/${wallet}`, query), this.key);
      // Unknown (404) on the first page; gone on a later one is a read to make again (`mixed` below).
      if (!body) break;
      first ??= body.data;
      if (body.data.data_as_of !== first.data_as_of) break;
      positions.push(...body.data.positions);
      cursor = body.data.pagination.has_more ? body.data.pagination.next_cursor : null;
      if (!cursor) break;
    }
    if (!first) return null;
    const listed = first.open_positions + first.closed_positions;
    const whole = new Set(positions.map((p) => p.asset_id)).size === listed && positions.length === listed;
    return { ...first, positions, data_as_of: whole ? first.data_as_of : 'mixed' };
  }

  curve(wallet: string, days: number): Promise<ApiCurve | null> {
    return this.one(`/traders/${wallet}/pnl`, { days: String(days) });
  }
}

export class SimulatorTruthApi {
  constructor(
    private readonly http: BoundedHttp,
    private readonly base: string,
  ) {}

  /** Every wallet with a change by `throughTime` (ISO), at most `maxPages` pages of 500. */
  async wallets(maxPages: number): Promise<{ addresses: string[]; truncated: boolean }> {
    const addresses: string[] = [];
    let cursor = '0';
    for (let page = 0; page < maxPages; page++) {
      const body = await this.http.getJson<{ source: string; data: TruthWallet[]; next_cursor: string | null }>(
        `${this.base}/wallets?limit=500&cursor=${cursor}`,
      );
      if (body?.source !== 'simulator') throw new Error(`${this.base}/wallets did not answer as the simulator's truth`);
      addresses.push(...body.data.map((wallet) => wallet.address));
      if (!body.next_cursor) return { addresses, truncated: false };
      cursor = body.next_cursor;
    }
    return { addresses, truncated: true };
  }

  /** The wallet's account as of `throughTime` (ISO), else at the truth's head. */
  async wallet(address: string, throughTime?: string): Promise<TruthWallet | null> {
    const through = throughTime === undefined ? '' : `?through_time=${encodeURIComponent(throughTime)}`;
    const body = await this.http.getJson<{ source: string; data: TruthWallet }>(`${this.base}/wallets/${address}${through}`);
    return body?.data ?? null;
  }
}
