/**
 * Platform-token balances of linked wallets, read from the chain through the chain-reader port
 * (ERC-20 balanceOf) and reused for `ttlMs` (TOKEN_BALANCE_TTL_MS, default 60 s): a tier follows a
 * wallet's balance within about a minute without a chain call per request. Concurrent lookups of one
 * wallet share one call. When the chain cannot be read the last known balance stands (however old);
 * with none, the balance is unknown and the tier rests on credits and operator-granted tokens.
 */
import type { ChainReader } from '../ports/chain-reader.js';
import { formatScaled } from '../shared/decimal.js';

export interface TokenBalance {
  /** Whole tokens, exact, as a decimal string. */
  tokens: string;
  asOfMs: number;
}

export interface TokenBalanceOptions {
  chain: () => ChainReader;
  token: string;
  decimals: number;
  ttlMs: number;
  clock?: () => number;
}

const MAX_WALLETS = 100_000;

export class TokenBalances {
  private readonly known = new Map<string, TokenBalance>();
  private readonly inFlight = new Map<string, Promise<TokenBalance | null>>();
  private readonly clock: () => number;

  constructor(private readonly options: TokenBalanceOptions) {
    this.clock = options.clock ?? Date.now;
  }

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  get token(): string {
    return this.options.token;
  }

  /** The cached balance without touching the chain. */
  peek(wallet: string): TokenBalance | null {
    return this.known.get(wallet.toLowerCase()) ?? null;
  }

  async balanceOf(wallet: string): Promise<TokenBalance | null> {
    const key = wallet.toLowerCase();
    const cached = this.known.get(key);
    if (cached && this.clock() - cached.asOfMs < this.options.ttlMs) return cached;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.read(key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async read(wallet: string): Promise<TokenBalance | null> {
    try {
      const units = await this.options.chain().erc20Balance(this.options.token, wallet);
      const balance = { tokens: formatScaled(units, this.options.decimals), asOfMs: this.clock() };
      this.known.delete(wallet);
      this.known.set(wallet, balance);
      while (this.known.size > MAX_WALLETS) this.known.delete(this.known.keys().next().value!);
      return balance;
    } catch {
      return this.known.get(wallet) ?? null;
    }
  }
}
