/**
 * `npm run demo`: the same stack as `npm start`, aimed at the bundled upstream simulator (Gamma, CLOB,
 * Data API and Polygon JSON-RPC).
 * The demo keeps its own data folder (default ./data-demo) whose simulator.json pins the world's
 * seed and start, so a restarted demo continues the same simulated upstream.
 * SIM_WALLET_COUNT sets the simulated population (default 200); with it, the chain source starts at the
 * simulator's genesis so every wallet's whole history (maker fills included) is read from the chain.
 * The simulator's truth URL (GET /truth/wallets, for `npm run verify`) is logged and written to
 * <DATA_DIR>/simulator-truth.json.
 */
import path from 'node:path';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { claimForSimulator } from './shared/data-dir-guard.js';
import { claimDataDirPrivately } from './shared/data-dir-privacy.js';
import { SIM_GENESIS_BLOCK } from '../simulator/chain.js';
import { HOUR_MS } from '../simulator/drafts.js';
import { simulatorUpstreamEnv, startSimulator } from '../simulator/server.js';
import { writeTruthEndpoint } from '../simulator/truth-endpoint.js';
import { startStack, startUntilSignal } from './stack.js';

try {
  const dataDir = path.resolve(process.env.DATA_DIR || './data-demo');
  // Before the first file (simulator.json) lands in it; the service's logger does not exist yet.
  claimDataDirPrivately(dataDir, { warn: (details, message) => console.warn(`${message} (${JSON.stringify(details)})`) });
  const marker = claimForSimulator(dataDir, Number(process.env.SIM_SEED ?? 42), Date.now());
  const walletCount = process.env.SIM_WALLET_COUNT ? Number(process.env.SIM_WALLET_COUNT) : undefined;
  if (walletCount !== undefined && !(Number.isInteger(walletCount) && walletCount >= 1)) {
    throw new ConfigError(`SIM_WALLET_COUNT must be a positive integer, got ${process.env.SIM_WALLET_COUNT}`);
  }
  const historyHours = process.env.SIM_HISTORY_HOURS ? Number(process.env.SIM_HISTORY_HOURS) : undefined;
  if (historyHours !== undefined && !(Number.isInteger(historyHours) && historyHours >= 1 && historyHours <= 48)) {
    throw new ConfigError(`SIM_HISTORY_HOURS must be an integer from 1 to 48, got ${process.env.SIM_HISTORY_HOURS}`);
  }
  const voids = Number(process.env.SIM_VOIDS ?? 0);
  if (!(Number.isInteger(voids) && voids >= 0))
    throw new ConfigError(`SIM_VOIDS must be a non-negative integer, got ${process.env.SIM_VOIDS}`);
  // A still world (SIM_FROZEN=1): the simulated clock stays at the world's start, so its history is
  // all there is and a run can check every figure against a chain that no longer moves.
  const frozen = process.env.SIM_FROZEN === '1';
  const simulator = await startSimulator({
    port: Number(process.env.SIM_PORT ?? 0),
    seed: marker.seed,
    epochMs: marker.epoch_ms,
    walletCount,
    ...(historyHours === undefined ? {} : { historyHours }),
    ...(frozen ? { clock: () => marker.epoch_ms } : {}),
    // Wallet-to-wallet ERC-1155 transfers (SIM_TRANSFERS=1), off by default (the verify e2e turns them on).
    transfers: process.env.SIM_TRANSFERS === '1',
    // Neg-risk conversions (SIM_CONVERSIONS=1) and SIM_VOIDS markets resolved 50-50 inside the history
    // (an hour before the world's start, or halfway through a shorter one), off by default (the verify e2e turns them on).
    conversions: process.env.SIM_CONVERSIONS === '1' || process.env.SIM_CONVERSIONS === 'all',
    // SIM_CONVERSIONS=all: some conversions also give up every question's NO (no YES minted).
    conversionsOfEveryQuestion: process.env.SIM_CONVERSIONS === 'all',
    // Markets trading against a legacy AMM (SIM_AMM_MARKETS=n, FPMMBuy/FPMMSell on chain), none by default (the verify e2e sets some).
    ammMarkets: Number(process.env.SIM_AMM_MARKETS ?? 0),
    ...(voids > 0 ? { scenarios: { voids, voidInMs: -Math.min(HOUR_MS, ((historyHours ?? 48) * HOUR_MS) / 2) } } : {}),
    // The chain misbehaves as public RPCs do: wide getLogs ranges are refused, and every 10 minutes a
    // reorg replaces the newest 5 blocks (deeper than the 3 confirmations, so it is retracted downstream).
    faults: { rpcMaxBlockRange: 1_000, reorgEveryBlocks: Number(process.env.SIM_REORG_EVERY_BLOCKS ?? 600), reorgDepth: 5 },
  });
  const config = loadConfig({
    // Faster metadata polls than production so resolutions show up quickly in a demo.
    MARKETS_POLL_INTERVAL_MS: '15000',
    // The simulator is local and small: backfill every market, not just the busiest hundred.
    TRADES_BACKFILL_MARKETS: '1000',
    TRADES_POLL_INTERVAL_MS: '2000',
    // The chain source starts an hour back (the Data API fast path serves what is older until the
    // history fill, CHAIN_HISTORY, has read it in the background), or at genesis for a population set by
    // SIM_WALLET_COUNT (whose numbers are meant to be verified whole); the RPC is local, so no public-RPC
    // budget. A restarted demo continues from its checkpoints.
    CHAIN_START_BLOCK: String(walletCount === undefined ? Math.max(SIM_GENESIS_BLOCK, simulator.chain.head() - 3_600) : SIM_GENESIS_BLOCK),
    CHAIN_RPC_BUDGET_PER_10S: '100000',
    CHAIN_RPC_BATCH_SIZE: '100',
    CHAIN_POLL_INTERVAL_MS: '1000',
    // Copy picks within the demo's first minutes, not after the production 10: the first run, at start,
    // finds an empty ledger. Not every minute either: a run replays every candidate's fills against the
    // book history, and back-to-back runs would hold a core of the demo. And a default sample size the
    // simulated world can meet: its wallets have at most a few resolved markets per category (4 at
    // start, seed 42), so the production 10 lists nobody.
    COPY_PICKS_INTERVAL_MS: '180000',
    COPY_PICKS_MIN_RESOLVED: '1',
    // A demo's webhook receivers are the developer's own, on this machine (production refuses loopback).
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost,::1',
    // A still chain never reorganizes: its head is final (else its last blocks would wait forever).
    ...(frozen ? { CHAIN_CONFIRMATIONS: '0' } : {}),
    ...process.env,
    DATA_DIR: dataDir,
    ...simulatorUpstreamEnv(simulator),
  });
  const logger = createLogger(config);
  writeTruthEndpoint(dataDir, simulator.truthUrl);
  logger.info(
    { simulator: simulator.baseUrl, truth: simulator.truthUrl, seed: marker.seed, wallets: simulator.state.world.wallets.length },
    'demo: upstream simulator started (all data labelled source=simulator)',
  );
  await startUntilSignal(async (signal) => {
    try {
      const stack = await startStack(config, logger, signal);
      return {
        stop: async () => {
          await stack.stop();
          await simulator.close();
        },
      };
    } catch (error) {
      await simulator.close();
      throw error;
    }
  }, logger);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
