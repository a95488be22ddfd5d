/**
 * What the verifier reads: the service's /v1 (a Tier 2 key) and, on a demo, the simulator's /truth.
 * Only the fields the checks use are typed; amounts stay as served (numbers in USDC, micro-unit strings).
 */
import type { BoundedHttp } from './http.js';

export interface ApiTrader {
  wallet: string;
  lifetime: {
    total_realized_pnl: number;
    unrealized_pnl: number;
    total_pnl: number;
    volume_usdc: number;
    trades: number;
    markets_traded: number;
    won: number;
    lost: number;
  };
  data_as_of: string | null;
  data_as_of_block?: number | null;
}

export interface ApiPosition {
  market_id: string;
  asset_id: string;
  market_status?: string | null;
  size_shares: number;
  size_shares_micro?: string;
  mark_price: number | null;
  mark_basis?: string;
  cost_basis_usdc: number;
  cost_basis_micro?: string;
  current_value_usdc: number | null;
  unrealized_pnl_usdc: number;
  realized_pnl_usdc: number;
}

export interface ApiPositions {
  wallet: string;
  positions: ApiPosition[];
  data_as_of: string | null;
  data_as_of_block?: number | null;
}

export interface ApiCurve {
  points: Array<{ date: string; realized: number; unrealized: number; total: number }>;
  data_as_of: string | null;
  data_as_of_block?: number | null;
}

export interface ApiFill {
  wallet: string;
  market_id: string;
  role: 'maker' | 'taker';
  fee_micro: string | null;
  fee_asset: 'usdc' | 'shares' | null;
  block_number: number | null;
  origin: 'chain' | 'data_api';
}

/** The simulator's account of one wallet (services/simulator/truth.ts), micro-units as strings. */
export interface TruthWallet {
  address: string;
  cash_paid_micro: string;
  cash_received_micro: string;
  fees_micro: string;
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

  positions(wallet: string): Promise<ApiPositions | null> {
    return this.one(`/positions/${wallet}`);
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

  async wallet(address: string, throughTime: string): Promise<TruthWallet | null> {
    const body = await this.http.getJson<{ source: string; data: TruthWallet }>(
      `${this.base}/wallets/${address}?through_time=${encodeURIComponent(throughTime)}`,
    );
    return body?.data ?? null;
  }
}
