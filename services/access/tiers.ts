/**
 * Tiers and the one rule for refusing a call. A tier is derived from the account's balances:
 *   3 when token_balance >= tier3 threshold; 2 when token_balance >= tier2 threshold or credits > 0;
 *   otherwise 1 ("sandbox" for self-registered agents, which are tier 1 plus the sandbox endpoints).
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
}

export interface Standing {
  kind: 'agent' | 'developer';
  tokenBalance: number;
  credits: number;
}

export function levelOf(standing: Standing, thresholds: TierThresholds): Level {
  if (standing.tokenBalance >= thresholds.tier3Tokens) return 3;
  if (standing.tokenBalance >= thresholds.tier2Tokens || standing.credits > 0) return 2;
  return 1;
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
            reason: `Tier 2 required: hold at least ${thresholds.tier2Tokens} platform tokens or add credits (see GET /v1/pricing/access)`,
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
