/** Operator actions on accounts: issue keys of a tier, add credits, set platform-token balances. */
import type { TierThresholds } from '../access/tiers.js';
import type { Accounts, Balances, IssuedKey } from '../control/accounts.js';

export type IssuableTier = '1' | '2' | '3';

export class AdminOperations {
  constructor(
    private readonly accounts: Accounts,
    private readonly thresholds: TierThresholds,
  ) {}

  /** A developer key whose account holds exactly the token balance its tier needs. */
  async createKey(name: string, tier: IssuableTier): Promise<IssuedKey & { tier: IssuableTier }> {
    const balance = tier === '3' ? this.thresholds.tier3Tokens : tier === '2' ? this.thresholds.tier2Tokens : 0;
    return { ...(await this.accounts.issueDeveloperKey(name, balance)), tier };
  }

  addCredits(apiKey: string, amount: number): Promise<Balances> {
    if (!(amount > 0)) throw new Error('amount must be a positive number');
    return this.accounts.addCredits(apiKey, amount);
  }

  setTokens(apiKey: string, balance: number): Promise<Balances> {
    if (!(balance >= 0)) throw new Error('balance must be zero or more');
    return this.accounts.setTokenBalance(apiKey, balance);
  }
}
