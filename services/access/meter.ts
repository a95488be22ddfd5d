/**
 * Metering: each account has a plan quota of calls per UTC day; past it, each call draws
 * `creditsPerCall` credits; with no credits left the call is refused with 402.
 * Call counts are kept in memory and flushed to the control store every `flushIntervalMs` as deltas,
 * so several API processes add up, a request within its quota never waits on a write, and admin
 * changes to balances are picked up on the next flush. A crash loses at most one interval of counts
 * (in the caller's favour). With N API processes an account can exceed its quota by at most what
 * N processes admit in one flush interval.
 * Credits are different: they are money, and fee settlement draws from the same balance
 * (services/fees/fee-ledger.ts). A call paid with credits draws them from the store before it is
 * served (`credits = credits - n WHERE credits >= n`), so every process and every fee see one
 * balance and a credit is spent once; the copy held here only answers "could credits pay?" without a
 * write, and is replaced by what each draw returns.
 * The plan follows the token balance alone. Credits open Tier 2 endpoints pay-as-you-go: a Tier 2
 * call that only credits allow draws `creditsPerCall` (within the quota too), so credits unlock
 * exactly the calls they pay for and no more.
 * A failed flush (control store unreachable) keeps its deltas for the next one and is reported to
 * `onFlushError`; it never rejects where nobody waits, so it cannot take the process down. A draw
 * that cannot reach the store fails its call (503): nothing is served on credits it could not draw.
 * A call that the copy here would refuse for want of credits or tokens first re-reads the account
 * (`refresh`): credits added by an operator or another process count from the next call, not from the
 * next flush. Refused calls arriving together share one read that started after they arrived, so a
 * flood of them costs at most one indexed read at a time per account (and the rate limit bounds it).
 * The same flush stores when each key was last used.
 * The token balance is the larger of the operator-granted balance (accounts.token_balance) and the
 * on-chain balance of the account's linked wallet (token-balances.ts, cached with its own TTL).
 */
import type { ControlStore } from '../ports/control-store.js';
import { recordKeysLastUsed } from '../control/key-lifecycle.js';
import type { TokenBalances } from './token-balances.js';
import { type Access, tierName, tokenLevelOf, unlockedByCredits, type Standing, type TierName, type TierThresholds } from './tiers.js';

export interface MeterOptions {
  quotasPerDay: Record<TierName, number>;
  creditsPerCall: number;
  thresholds: TierThresholds;
  flushIntervalMs: number;
  clock?: () => number;
  /** Told about each failed periodic flush (logging); the deltas wait for the next one. */
  onFlushError?: (error: unknown) => void;
  /** On-chain platform-token balances of linked wallets; without it only granted balances count. */
  tokenBalances?: TokenBalances;
}

export interface MeterStats {
  flushes: number;
  flush_failures: number;
  /** Charged calls given back because the service did not serve them (429 from the engine's lanes, 5xx). */
  refunds: number;
  accounts: number;
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
  /** The store's balance as last read or drawn: a hint, never spent from. */
  credits: number;
  pendingCalls: number;
  /** Credits already drawn from the balance, not yet added to usage_counters.credits_spent. */
  pendingCreditsSpent: number;
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

/** A charge: on success, whether credits paid it and the UTC day it counted in (what `refund` gives back). */
export type Charge = { ok: true; paidWithCredits: boolean; period: string } | { ok: false; reason: string };

const IDLE_EVICT_MS = 10 * 60_000;

export class Meter {
  private readonly accounts = new Map<string, AccountState>();
  private readonly loading = new Map<string, Promise<AccountState>>();
  /** Last use of each key since the last flush (key id -> ms). */
  private keysUsed = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** The flush chain; always settled-or-pending, never left rejected (a failure must not stop later flushes). */
  private flushing: Promise<void> = Promise.resolve();
  private readonly clock: () => number;
  private readonly counters = { flushes: 0, flush_failures: 0, refunds: 0 };
  /** The account re-read in flight, with the ticket it started at (see `refresh`). */
  private readonly refreshing = new Map<string, { ticket: number; done: Promise<void> }>();
  private tickets = 0;

  constructor(
    private readonly store: ControlStore,
    private readonly options: MeterOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.flush().catch((error: unknown) => this.options.onFlushError?.(error));
    }, this.options.flushIntervalMs);
    this.timer.unref();
  }

  /** Stops the timer and makes a last flush; a failing last flush is reported, not thrown. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush().catch((error: unknown) => this.options.onFlushError?.(error));
  }

  stats(): MeterStats {
    return { ...this.counters, accounts: this.accounts.size };
  }

  /** Notes that a key was used now (stored as last_used_at at the next flush). */
  touchKey(keyId: string): void {
    this.keysUsed.set(keyId, this.clock());
  }

  /** The standing of an account already in memory for today (no load), else undefined. */
  peekStanding(accountId: string): Standing | undefined {
    const state = this.accounts.get(accountId);
    if (!state || state.periodStart !== periodOf(this.clock())) return undefined;
    return { kind: state.kind, tokenBalance: state.tokenBalance, credits: availableCredits(state) };
  }

  async standing(accountId: string): Promise<Standing> {
    const state = await this.state(accountId);
    return { kind: state.kind, tokenBalance: await this.tokensOf(state), credits: availableCredits(state) };
  }

  /**
   * The standing after re-reading the account from the store: what a call about to be refused for
   * want of credits or tokens is decided on, so a balance changed elsewhere counts at once.
   */
  async refreshedStanding(accountId: string): Promise<Standing> {
    const state = await this.state(accountId);
    await this.refresh(state);
    return { kind: state.kind, tokenBalance: await this.tokensOf(state), credits: availableCredits(state) };
  }

  /**
   * Re-reads the account's balances into `state` by a read that starts after this call: waits for a
   * read in flight, and returns when that one had started after it; otherwise starts its own.
   * Checking the map and setting it happen without an await between, so waiters woken together
   * start one read, not one each.
   */
  private async refresh(state: AccountState): Promise<void> {
    const ticket = ++this.tickets;
    for (;;) {
      const running = this.refreshing.get(state.accountId);
      if (!running) break;
      await running.done;
      if (running.ticket > ticket) return;
    }
    const entry = {
      ticket: ++this.tickets,
      done: this.load(state.accountId).then(
        (reloaded) => {
          // Balances only: the call counts stay the flush's (a read racing a flush must not lose its delta).
          if (reloaded.periodStart !== state.periodStart) return;
          state.kind = reloaded.kind;
          state.tokenBalance = reloaded.tokenBalance;
          state.wallet = reloaded.wallet;
          state.credits = reloaded.credits;
        },
        () => undefined,
      ),
    };
    this.refreshing.set(state.accountId, entry);
    await entry.done;
    if (this.refreshing.get(state.accountId) === entry) this.refreshing.delete(state.accountId);
  }

  private async tokensOf(state: AccountState): Promise<number> {
    if (state.wallet && this.options.tokenBalances) {
      const balance = await this.options.tokenBalances.balanceOf(state.wallet);
      state.chainTokens = balance ? Number(balance.tokens) : null;
    } else state.chainTokens = null;
    return effectiveTokens(state);
  }

  /**
   * Counts one call needing `access`, drawing credits when only credits allow it (Tier 2 without the
   * tokens) or when the quota is used up; refuses when neither quota nor credits cover it.
   */
  async charge(accountId: string, access: Access = 'tier1'): Promise<Charge> {
    const state = await this.state(accountId);
    const quota = this.options.quotasPerDay[this.planOf(state)];
    const standing = { kind: state.kind, tokenBalance: effectiveTokens(state), credits: availableCredits(state) };
    if (unlockedByCredits(access, standing, this.options.thresholds)) {
      if (await this.draw(state)) return { ok: true, paidWithCredits: true, period: state.periodStart };
      return {
        ok: false,
        reason: `Tier 2 calls without the platform tokens draw ${this.options.creditsPerCall} credits each; add credits`,
      };
    }
    if (state.persistedCalls + state.pendingCalls < quota) {
      state.pendingCalls += 1;
      return { ok: true, paidWithCredits: false, period: state.periodStart };
    }
    if (await this.draw(state)) return { ok: true, paidWithCredits: true, period: state.periodStart };
    return {
      ok: false,
      reason: `daily quota of ${quota} calls used and no credits left; add credits or wait for ${nextPeriod(state.periodStart)}`,
    };
  }

  /**
   * Charges `calls` calls needing `access` together (an export's bytes): all of them, or none when the
   * quota left and the credits (re-read first) cannot cover them all. Each is then charged as `charge`
   * does; another request of the account between the check and the charges can still make one fail.
   */
  async chargeCalls(accountId: string, access: Access, calls: number): Promise<Charge> {
    const state = await this.state(accountId);
    await this.refresh(state);
    const standing = { kind: state.kind, tokenBalance: effectiveTokens(state), credits: availableCredits(state) };
    const quotaLeft = unlockedByCredits(access, standing, this.options.thresholds)
      ? 0
      : Math.max(0, this.options.quotasPerDay[this.planOf(state)] - state.persistedCalls - state.pendingCalls);
    const creditCalls = Math.floor(availableCredits(state) / this.options.creditsPerCall);
    if (quotaLeft + creditCalls < calls)
      return {
        ok: false,
        reason: `this needs ${calls} calls, and the account has ${quotaLeft} left of today's quota and credits for ${creditCalls} more; add credits or wait for ${nextPeriod(state.periodStart)}`,
      };
    let paidWithCredits = false;
    for (let i = 0; i < calls; i++) {
      const charged = await this.charge(accountId, access);
      if (!charged.ok) return charged;
      paidWithCredits ||= charged.paidWithCredits;
    }
    return { ok: true, paidWithCredits, period: state.periodStart };
  }

  /**
   * Gives back one charged call the service then did not serve (the engine's lanes refused it, 429,
   * or it failed, 5xx): its credits to the balance when credits paid it, and its count to the quota
   * of the day it counted in (not after that day ended: its count is flushed into a closed day).
   */
  async refund(accountId: string, charge: Extract<Charge, { ok: true }>): Promise<void> {
    const state = this.accounts.get(accountId);
    const sameDay = state !== undefined && state.periodStart === charge.period;
    if (charge.paidWithCredits) {
      const price = this.options.creditsPerCall;
      const [row] = await this.store.query<{ credits: string }>(
        'UPDATE accounts SET credits = credits + $2 WHERE id = $1 RETURNING credits::text AS credits',
        [accountId, price],
      );
      if (state && row) state.credits = Number(row.credits);
      if (sameDay) state.pendingCreditsSpent -= price;
    }
    if (sameDay) state.pendingCalls -= 1;
    this.counters.refunds++;
  }

  /**
   * Draws one call's credits from the store, only if the balance holds them, and counts the call.
   * With no credits known here it re-reads the account (`refresh`) before refusing, never writes.
   */
  private async draw(state: AccountState): Promise<boolean> {
    const price = this.options.creditsPerCall;
    if (state.credits < price) await this.refresh(state);
    if (state.credits < price) return false;
    const [row] = await this.store.query<{ credits: string }>(
      'UPDATE accounts SET credits = credits - $2 WHERE id = $1 AND credits >= $2 RETURNING credits::text AS credits',
      [state.accountId, price],
    );
    if (!row) {
      const [current] = await this.store.query<{ credits: string }>('SELECT credits::text AS credits FROM accounts WHERE id = $1', [
        state.accountId,
      ]);
      state.credits = Number(current?.credits ?? 0);
      return false;
    }
    state.credits = Number(row.credits);
    state.pendingCalls += 1;
    state.pendingCreditsSpent += price;
    return true;
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

  /**
   * Writes pending deltas and reloads every known account (so other processes' counts and admin
   * changes show). Each account's write is its own transaction: one that fails keeps its deltas for
   * the next flush, and the others still go through. Rejects (after doing all it can) when any failed.
   */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.flushOnce());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async flushOnce(): Promise<void> {
    const now = this.clock();
    let failure: unknown = null;
    const keysUsed = this.keysUsed;
    this.keysUsed = new Map();
    try {
      await recordKeysLastUsed(this.store, keysUsed);
    } catch (error) {
      failure = error;
      // Put them back unless a newer use was noted meanwhile.
      for (const [keyId, at] of keysUsed) if (!this.keysUsed.has(keyId)) this.keysUsed.set(keyId, at);
    }
    for (const state of [...this.accounts.values()]) {
      try {
        await this.flushAccount(state, now);
      } catch (error) {
        failure ??= error;
      }
    }
    this.counters.flushes++;
    if (failure !== null) {
      this.counters.flush_failures++;
      throw failure;
    }
  }

  private async flushAccount(state: AccountState, now: number): Promise<void> {
    const calls = state.pendingCalls;
    const credits = state.pendingCreditsSpent;
    // A refund after its call was flushed leaves a negative delta: written the same way.
    if (calls !== 0 || credits !== 0) {
      await this.store.transaction((tx) =>
        tx.query(
          `INSERT INTO usage_counters (account_id, period_start, calls, credits_spent) VALUES ($1, $2, $3, $4)
           ON CONFLICT (account_id, period_start)
           DO UPDATE SET calls = usage_counters.calls + EXCLUDED.calls, credits_spent = usage_counters.credits_spent + EXCLUDED.credits_spent`,
          [state.accountId, state.periodStart, calls, credits],
        ),
      );
      state.pendingCalls -= calls;
      state.pendingCreditsSpent -= credits;
    }
    if (now - state.lastSeenMs > IDLE_EVICT_MS && state.pendingCalls === 0 && state.pendingCreditsSpent === 0) {
      this.accounts.delete(state.accountId);
      return;
    }
    const reloaded = await this.load(state.accountId);
    // A new UTC day since the state was made: its counts belong to a period that is flushed and over.
    if (reloaded.periodStart === state.periodStart)
      Object.assign(state, reloaded, {
        pendingCalls: state.pendingCalls,
        pendingCreditsSpent: state.pendingCreditsSpent,
        lastSeenMs: state.lastSeenMs,
        chainTokens: state.chainTokens,
      });
  }

  private planOf(state: AccountState): TierName {
    const level = tokenLevelOf({ kind: state.kind, tokenBalance: effectiveTokens(state), credits: 0 }, this.options.thresholds);
    return level === 1 && state.kind === 'agent' ? 'sandbox' : (String(level) as TierName);
  }

  private async state(accountId: string): Promise<AccountState> {
    const today = periodOf(this.clock());
    const existing = this.accounts.get(accountId);
    if (existing && existing.periodStart === today) {
      existing.lastSeenMs = this.clock();
      return existing;
    }
    // Yesterday's counts go out first; if the store is down they stay unwritten (in the caller's favour).
    if (existing) await this.flush().catch((error: unknown) => this.options.onFlushError?.(error));
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
      credits: Number(row.credits),
      pendingCalls: 0,
      pendingCreditsSpent: 0,
      lastSeenMs: this.clock(),
    };
  }
}

function effectiveTokens(state: AccountState): number {
  return Math.max(state.tokenBalance, state.chainTokens ?? 0);
}

function availableCredits(state: AccountState): number {
  return Math.max(0, state.credits);
}

function periodOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function nextPeriod(periodStart: string): string {
  return new Date(Date.parse(`${periodStart}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
