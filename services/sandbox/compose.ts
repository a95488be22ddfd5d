/**
 * What the API needs for the sandbox, fees and token-balance tiers, composed once from config: the
 * paper service, briefings, the fee ledger, wallet links and token balances. The chain reader is
 * opened on first use (a fee paid on chain, a linked wallet's balance), so a process that never
 * needs the chain never contacts it.
 */
import type { WalletApi } from '../access/wallet-links.js';
import { TokenBalances } from '../access/token-balances.js';
import { BriefingService } from '../briefing/briefing-service.js';
import type { Config } from '../config.js';
import { FeeLedger } from '../fees/fee-ledger.js';
import { PaperService } from '../paper/paper-service.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { ChainReader } from '../ports/chain-reader.js';
import type { ControlStore } from '../ports/control-store.js';
import { briefingPicks } from '../read-models/copy-picks/routes.js';
import { STREAMS } from '../read-models/registry.js';
import { openChainReader } from '../ingest/upstreams.js';

export interface SandboxApis {
  paper: PaperService;
  briefings: BriefingService;
  fees: FeeLedger;
  wallet: WalletApi;
  tokenBalances?: TokenBalances;
  close(): Promise<void>;
}

export function composeSandboxApis(
  config: Config,
  control: ControlStore,
  store: AnalyticsStore,
  clock: () => number = Date.now,
): SandboxApis {
  let reader: ChainReader | null = null;
  // POLYGON_RPC_URL= turns the chain off: opening throws, so fees paid on chain answer 503 and linked balances stay unknown.
  const chain = () => {
    reader ??= openChainReader(config.chain);
    return reader;
  };
  const paper = new PaperService(
    control,
    store,
    {
      startingBalanceUsdc: config.sandbox.startingBalanceUsdc,
      maxOpenOrders: config.sandbox.maxOpenOrders,
      feeFallback: config.sandbox.feeFallback,
      maxBookAgeMs: config.sandbox.maxBookAgeMs,
    },
    clock,
  );
  const briefings = new BriefingService(
    control,
    paper,
    {
      pollSeconds: config.sandbox.pollSeconds,
      resolvingSoonHours: config.sandbox.resolvingSoonHours,
      drawdownAlertPct: config.sandbox.drawdownAlertPct,
      progressTopics: [STREAMS.trades.topic, STREAMS.bookSnapshots.topic],
    },
    clock,
    (topics) => briefingPicks(store, topics, config.copy.picks.minResolved),
  );
  const tokenBalances = config.platformToken.contract
    ? new TokenBalances({
        chain,
        token: config.platformToken.contract,
        decimals: config.platformToken.decimals,
        ttlMs: config.platformToken.balanceTtlMs,
        clock,
      })
    : undefined;
  return {
    paper,
    briefings,
    fees: new FeeLedger({
      control,
      settings: { fees: config.fees, platformToken: config.platformToken, chainId: config.chain.chainId },
      chain,
      clock,
    }),
    wallet: { control, balances: tokenBalances, chainId: config.chain.chainId, clock },
    tokenBalances,
    async close() {
      await reader?.close();
    },
  };
}
