/**
 * Tiers and the one rule for refusing a call. A tier is derived from the account's balances:
 *   3 when token_balance >= tier3 threshold; 2 when token_balance >= tier2 threshold, or when the
 *   credits cover one call (credits >= tier2Credits, the price of a call); otherwise 1 ("sandbox" for
 *   self-registered agents, which are tier 1 plus the sandbox endpoints).
 * Tier 2 reached through credits is pay-as-you-go: each call that only credits unlock draws its
 * price (services/access/meter.ts), so credits unlock exactly the calls they pay for.
 * Refusals: 402 PAYMENT_REQUIRED when paying (tokens or credits) would unlock the call;
 *           403 FORBIDDEN when the key's kind can never reach it (sandbox endpoints need an agent key).
 */
export type Level = 1 | 2 | 3;
export type TierName = 'sandbox' | '1' | '2' | '3';
/** What an endpoint needs, declared per operation as `x-access` in api/openapi.yaml. */
export type Access = 'any' | 'tier1' | 'tier2' | 'tier3' | 'sandbox';

export interface TierThresholds {
  tier2Tokens: number;
  tier3Tokens: number;
  /** Credits that unlock Tier 2 for one call: the price of a call (CREDITS_PER_CALL). */
  tier2Credits: number;
}

export interface Standing {
  kind: 'agent' | 'developer';
  tokenBalance: number;
  credits: number;
}

/** The level the token balance alone gives (the quota plan). */
export function tokenLevelOf(standing: Standing, thresholds: TierThresholds): Level {
  if (standing.tokenBalance >= thresholds.tier3Tokens) return 3;
  if (standing.tokenBalance >= thresholds.tier2Tokens) return 2;
  return 1;
}

function levelOf(standing: Standing, thresholds: TierThresholds): Level {
  const byTokens = tokenLevelOf(standing, thresholds);
  return byTokens === 1 && standing.credits >= thresholds.tier2Credits && standing.credits > 0 ? 2 : byTokens;
}

/** Whether credits, not tokens, are what allows a call needing `access` (so the call draws credits). */
export function unlockedByCredits(access: Access, standing: Standing, thresholds: TierThresholds): boolean {
  return access === 'tier2' && tokenLevelOf(standing, thresholds) < 2;
}

export function tierName(standing: Standing, thresholds: TierThresholds): TierName {
  const level = levelOf(standing, thresholds);
  return level === 1 && standing.kind === 'agent' ? 'sandbox' : (String(level) as TierName);
}

export type Decision = { allowed: true } | { allowed: false; status: 402 | 403; reason: string };

export function decide(access: Access, standing: Standing, thresholds: TierThresholds): Decision {
  const level = levelOf(standing, thresholds);
  switch (access) {
    case 'any':
    case 'tier1':
      return { allowed: true };
    case 'sandbox':
      return standing.kind === 'agent'
        ? { allowed: true }
        : { allowed: false, status: 403, reason: 'sandbox endpoints are for self-registered agent keys (POST /v1/agents/register)' };
    case 'tier2':
      return level >= 2
        ? { allowed: true }
        : {
            allowed: false,
            status: 402,
            reason: `Tier 2 required: hold at least ${thresholds.tier2Tokens} platform tokens, or hold credits (each Tier 2 call draws ${thresholds.tier2Credits}; see GET /v1/pricing/access)`,
          };
    case 'tier3':
      return level >= 3
        ? { allowed: true }
        : {
            allowed: false,
            status: 402,
            reason: `Tier 3 required: hold at least ${thresholds.tier3Tokens} platform tokens (see GET /v1/pricing/access)`,
          };
  }
}
