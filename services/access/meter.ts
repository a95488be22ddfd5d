/**
 * Metering: each account has a plan quota of calls per UTC day; past it, each call draws
 * `creditsPerCall` credits; with no credits left the call is refused with 402.
 * Counts are kept in memory and flushed to the control store every `flushIntervalMs` as deltas,
 * so several API processes add up, a request never waits on a write, and admin changes to
 * balances are picked up on the next flush. A crash loses at most one interval of counts
 * (in the caller's favour).
 * The plan follows the token balance alone (credits open Tier 2 endpoints but are pay-as-you-go:
 * they do not buy a bigger quota).
 * The token balance is the larger of the operator-granted balance (accounts.token_balance) and the
 * on-chain balance of the account's linked wallet (token-balances.ts, cached with its own TTL).
 */
import type { ControlStore } from '../ports/control-store.js';
import type { TokenBalances } from './token-balances.js';
import { tierName, type Standing, type TierName, type TierThresholds } from './tiers.js';

export interface MeterOptions {
  quotasPerDay: Record<TierName, number>;
  creditsPerCall: number;
  thresholds: TierThresholds;
  flushIntervalMs: number;
  clock?: () => number;
  /** On-chain platform-token balances of linked wallets; without it only granted balances count. */
  tokenBalances?: TokenBalances;
}

interface AccountState {
  accountId: string;
  periodStart: string;
  kind: Standing['kind'];
  tokenBalance: number;
  wallet: string | null;
  /** The linked wallet's balance as last read (null: no wallet, or unknown). */
  chainTokens: number | null;
  persistedCalls: number;
  persistedCredits: number;
  pendingCalls: number;
  pendingCredits: number;
  lastSeenMs: number;
}

export interface Usage {
  period: 'day';
  period_start: string;
  period_end: string;
  tier: TierName;
  /** The quota plan: the tier the token balance alone gives. */
  plan: TierName;
  quota: number;
  used: number;
  remaining: number;
  credits_balance: number;
  credits_per_call_over_quota: number;
}

export type Charge = { ok: true; paidWithCredits: boolean } | { ok: false; reason: string };

const IDLE_EVICT_MS = 10 * 60_000;

export class Meter {
  private readonly accounts = new Map<string, AccountState>();
  private readonly loading = new Map<string, Promise<AccountState>>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly clock: () => number;

  constructor(
    private readonly store: ControlStore,
    private readonly options: MeterOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.options.flushIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  async standing(accountId: string): Promise<Standing> {
    const state = await this.state(accountId);
    return { kind: state.kind, tokenBalance: await this.tokensOf(state), credits: availableCredits(state) };
  }

  private async tokensOf(state: AccountState): Promise<number> {
    if (state.wallet && this.options.tokenBalances) {
      const balance = await this.options.tokenBalances.balanceOf(state.wallet);
      state.chainTokens = balance ? Number(balance.tokens) : null;
    } else state.chainTokens = null;
    return effectiveTokens(state);
  }

  /** Counts one metered call, drawing credits past the quota; refuses when neither covers it. */
  async charge(accountId: string): Promise<Charge> {
    const state = await this.state(accountId);
    const quota = this.options.quotasPerDay[this.planOf(state)];
    if (state.persistedCalls + state.pendingCalls < quota) {
      state.pendingCalls += 1;
      return { ok: true, paidWithCredits: false };
    }
    if (availableCredits(state) >= this.options.creditsPerCall) {
      state.pendingCalls += 1;
      state.pendingCredits += this.options.creditsPerCall;
      return { ok: true, paidWithCredits: true };
    }
    return {
      ok: false,
      reason: `daily quota of ${quota} calls used and no credits left; add credits or wait for ${nextPeriod(state.periodStart)}`,
    };
  }

  async usage(accountId: string): Promise<Usage> {
    const state = await this.state(accountId);
    const standing = { kind: state.kind, tokenBalance: await this.tokensOf(state), credits: availableCredits(state) };
    const tier = tierName(standing, this.options.thresholds);
    const plan = this.planOf(state);
    const quota = this.options.quotasPerDay[plan];
    const used = state.persistedCalls + state.pendingCalls;
    return {
      period: 'day',
      period_start: `${state.periodStart}T00:00:00.000Z`,
      period_end: `${nextPeriod(state.periodStart)}T00:00:00.000Z`,
      tier,
      plan,
      quota,
      used,
      remaining: Math.max(0, quota - used),
      credits_balance: standing.credits,
      credits_per_call_over_quota: this.options.creditsPerCall,
    };
  }

  /** Writes pending deltas and reloads every known account (so other processes' counts and admin changes show). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const now = this.clock();
      for (const state of [...this.accounts.values()]) {
        const calls = state.pendingCalls;
        const credits = state.pendingCredits;
        if (calls > 0 || credits > 0) {
          await this.store.transaction(async (tx) => {
            await tx.query(
              `INSERT INTO usage_counters (account_id, period_start, calls, credits_spent) VALUES ($1, $2, $3, $4)
               ON CONFLICT (account_id, period_start)
               DO UPDATE SET calls = usage_counters.calls + EXCLUDED.calls, credits_spent = usage_counters.credits_spent + EXCLUDED.credits_spent`,
              [state.accountId, state.periodStart, calls, credits],
            );
            if (credits > 0)
              await tx.query('UPDATE accounts SET credits = GREATEST(credits - $2, 0) WHERE id = $1', [state.accountId, credits]);
          });
          state.pendingCalls -= calls;
          state.pendingCredits -= credits;
        }
        if (now - state.lastSeenMs > IDLE_EVICT_MS && state.pendingCalls === 0) this.accounts.delete(state.accountId);
        else
          Object.assign(state, await this.load(state.accountId), {
            pendingCalls: state.pendingCalls,
            pendingCredits: state.pendingCredits,
            lastSeenMs: state.lastSeenMs,
            chainTokens: state.chainTokens,
          });
      }
    });
    return this.flushing;
  }

  private planOf(state: AccountState): TierName {
    return tierName({ kind: state.kind, tokenBalance: effectiveTokens(state), credits: 0 }, this.options.thresholds);
  }

  private async state(accountId: string): Promise<AccountState> {
    const today = periodOf(this.clock());
    const existing = this.accounts.get(accountId);
    if (existing && existing.periodStart === today) {
      existing.lastSeenMs = this.clock();
      return existing;
    }
    if (existing) await this.flush();
    let pending = this.loading.get(accountId);
    if (!pending) {
      pending = this.load(accountId).finally(() => this.loading.delete(accountId));
      this.loading.set(accountId, pending);
    }
    const state = await pending;
    const current = this.accounts.get(accountId);
    if (current && current.periodStart === state.periodStart) return current;
    this.accounts.set(accountId, state);
    return state;
  }

  private async load(accountId: string): Promise<AccountState> {
    const periodStart = periodOf(this.clock());
    const [row] = await this.store.query<{
      kind: Standing['kind'];
      token_balance: string;
      credits: string;
      calls: string | null;
      wallet_address: string | null;
    }>(
      `SELECT a.kind, a.token_balance::text AS token_balance, a.credits::text AS credits, u.calls::text AS calls, a.wallet_address
         FROM accounts a LEFT JOIN usage_counters u ON u.account_id = a.id AND u.period_start = $2
        WHERE a.id = $1`,
      [accountId, periodStart],
    );
    if (!row) throw new Error(`account ${accountId} not found`);
    return {
      accountId,
      periodStart,
      kind: row.kind,
      tokenBalance: Number(row.token_balance),
      wallet: row.wallet_address,
      chainTokens: null,
      persistedCalls: Number(row.calls ?? 0),
      persistedCredits: Number(row.credits),
      pendingCalls: 0,
      pendingCredits: 0,
      lastSeenMs: this.clock(),
    };
  }
}

function effectiveTokens(state: AccountState): number {
  return Math.max(state.tokenBalance, state.chainTokens ?? 0);
}

function availableCredits(state: AccountState): number {
  return Math.max(0, Math.round((state.persistedCredits - state.pendingCredits) * 1e6) / 1e6);
}

function periodOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function nextPeriod(periodStart: string): string {
  return new Date(Date.parse(`${periodStart}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
