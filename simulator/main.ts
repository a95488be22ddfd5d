/**
 * CLI: `npm run simulator`. Starts the upstream simulator from environment variables and logs the
 * three base URLs to point the ingestor at. Only this file reads process.env.
 */

import { pino } from 'pino';
import { z } from 'zod';
import { startSimulator } from './server.js';

const rate = z.coerce.number().min(0).max(1);

const ConfigSchema = z.object({
  // 8090: clear of the service's own API port, stable so a local .env can point at it.
  SIM_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  // 42: any fixed value; fixed so two runs show the same world.
  SIM_SEED: z.coerce.number().int().default(42),
  // Optional knobs; unset means the simulator's defaults (300 markets, 200 wallets, 3 trades/s).
  SIM_MARKET_COUNT: z.coerce.number().int().min(1).optional(),
  SIM_WALLET_COUNT: z.coerce.number().int().min(1).optional(),
  SIM_TRADES_PER_SECOND: z.coerce.number().min(0).optional(),
  SIM_HISTORIC_TRADES: z.coerce.number().int().min(0).optional(),
  // Old, long-resolved markets in the catalog (no trades): e.g. 99700 for a 100,000-market catalog.
  SIM_HISTORICAL_MARKETS: z.coerce.number().int().min(0).optional(),
  // Start of the world (epoch ms); set it to restart into the same world and tape.
  SIM_EPOCH_MS: z.coerce.number().int().positive().optional(),
  // Wallet-to-wallet ERC-1155 transfers (1 = on); off by default, so the default world stays the one every other test was built on.
  SIM_TRANSFERS: z.enum(['0', '1']).default('0'),
  // Neg-risk conversions (1 = on, all = on and some of every question's NO); off by default for the same reason.
  SIM_CONVERSIONS: z.enum(['0', '1', 'all']).default('0'),
  // Markets that trade against a legacy AMM (FixedProductMarketMaker) instead of the order book; 0 by default for the same reason.
  SIM_AMM_MARKETS: z.coerce.number().int().min(0).default(0),
  SIM_HTTP429_RATE: rate.optional(),
  SIM_HTTP500_RATE: rate.optional(),
  SIM_MALFORMED_TRADE_RATE: rate.optional(),
  // Polygon JSON-RPC faults: refuse getLogs over more blocks / results than these, throttle past
  // this many calls per 10 s, reorganise the newest SIM_REORG_DEPTH blocks every N blocks.
  SIM_RPC_MAX_BLOCK_RANGE: z.coerce.number().int().positive().optional(),
  SIM_RPC_MAX_LOGS: z.coerce.number().int().positive().optional(),
  SIM_RPC_REQUESTS_PER_10S: z.coerce.number().int().positive().optional(),
  SIM_REORG_EVERY_BLOCKS: z.coerce.number().int().min(0).optional(),
  SIM_REORG_DEPTH: z.coerce.number().int().positive().optional(),
});

const logger = pino({ name: 'simulator' });

async function main(): Promise<void> {
  const config = Object.freeze(ConfigSchema.parse(process.env));
  const startedAt = performance.now();
  const simulator = await startSimulator({
    port: config.SIM_PORT,
    seed: config.SIM_SEED,
    marketCount: config.SIM_MARKET_COUNT,
    walletCount: config.SIM_WALLET_COUNT,
    tradesPerSecond: config.SIM_TRADES_PER_SECOND,
    historicTrades: config.SIM_HISTORIC_TRADES,
    historicalMarkets: config.SIM_HISTORICAL_MARKETS,
    epochMs: config.SIM_EPOCH_MS,
    transfers: config.SIM_TRANSFERS === '1',
    conversions: config.SIM_CONVERSIONS !== '0',
    conversionsOfEveryQuestion: config.SIM_CONVERSIONS === 'all',
    ammMarkets: config.SIM_AMM_MARKETS,
    faults: {
      http429Rate: config.SIM_HTTP429_RATE,
      http500Rate: config.SIM_HTTP500_RATE,
      malformedTradeRate: config.SIM_MALFORMED_TRADE_RATE,
      rpcMaxBlockRange: config.SIM_RPC_MAX_BLOCK_RANGE,
      rpcMaxLogs: config.SIM_RPC_MAX_LOGS,
      rpcRequestsPer10s: config.SIM_RPC_REQUESTS_PER_10S,
      reorgEveryBlocks: config.SIM_REORG_EVERY_BLOCKS,
      reorgDepth: config.SIM_REORG_DEPTH,
    },
  });
  logger.info(
    {
      baseUrl: simulator.baseUrl,
      gammaUrl: simulator.gammaUrl,
      clobUrl: simulator.clobUrl,
      dataUrl: simulator.dataUrl,
      rpcUrl: simulator.rpcUrl,
      seed: config.SIM_SEED,
      markets: simulator.state.world.markets.length,
      wallets: simulator.state.world.wallets.length,
      historicTrades: simulator.state.trades.length,
      startupMs: Math.round(performance.now() - startedAt),
    },
    'upstream simulator listening',
  );

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'stopping simulator');
    simulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  logger.error({ err: error }, 'simulator failed to start');
  process.exit(1);
});
