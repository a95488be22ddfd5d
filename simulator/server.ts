/**
 * The upstream simulator: one HTTP listener on 127.0.0.1 speaking Polymarket's Gamma (/gamma), CLOB
 * (/clob) and Data API (/data) shapes and Polygon JSON-RPC (/rpc) over a seeded, generated world, so the real ingestion adapters
 * can run against it unchanged. Every response says `X-Upstream-Source: simulator`, which the
 * ingestor turns into the `simulator` source label on everything it stores.
 */

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { OrderBooks } from './books.js';
import { SIM_GENESIS_BLOCK, type SimChainOptions, SimulatedChain } from './chain.js';
import { httpFaults, type FaultOptions } from './faults.js';
import { errorHandler, notFoundHandler } from './http-params.js';
import { clobRouter } from './routes-clob.js';
import { dataRouter } from './routes-data.js';
import { gammaRouter } from './routes-gamma.js';
import { type RpcFaultOptions, rpcRouter } from './routes-rpc.js';
import { SimulatorState, type SimulatorStateOptions } from './state.js';
import { truthRouter } from './routes-truth.js';
import { attachMarketWebSocket, type WsFaultOptions } from './ws-market.js';

export interface SimulatorOptions extends SimulatorStateOptions, SimChainOptions {
  /** 0 = a random free port. */
  port?: number;
  /** Live generation timer; default 1000 ms. Requests also catch up to the clock before answering. */
  tickIntervalMs?: number;
  faults?: FaultOptions & WsFaultOptions & RpcFaultOptions & ReorgFaultOptions;
}

interface ReorgFaultOptions {
  /** Reorganise the chain every this many blocks (0 or unset: only when reorg() is called). */
  reorgEveryBlocks?: number;
  /** Blocks replaced by each periodic reorg; default 3. */
  reorgDepth?: number;
}

export interface RunningSimulator {
  baseUrl: string;
  gammaUrl: string;
  clobUrl: string;
  dataUrl: string;
  /** The CLOB market websocket (ws://.../ws/market). */
  wsUrl: string;
  /** Polygon JSON-RPC over the simulated chain. */
  rpcUrl: string;
  /** The simulator's own accounting of every wallet (GET /truth/wallets, /truth/wallets/:address). */
  truthUrl: string;
  chain: SimulatedChain;
  /** Replaces the newest `depth` blocks with a competing fork; returns the block range replaced. */
  reorg(depth: number): { from: number; to: number };
  /** Replaces the blocks from `from` to the newest with a competing fork; returns the block range replaced. */
  reorgFrom(from: number): { from: number; to: number };
  /** Sends pending websocket updates now (they are also pushed every 250 ms). */
  pushWebSocket(): void;
  /** Read access for tests. */
  state: SimulatorState;
  /** Generate trades and resolutions for that much simulated time, immediately. */
  advance(ms: number): void;
  close(): Promise<void>;
}

const UPSTREAM_SOURCE_HEADER = 'X-Upstream-Source';
const LISTEN_HOST = '127.0.0.1';
const DEFAULT_TICK_INTERVAL_MS = 1000;

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const state = new SimulatorState(options);
  const books = new OrderBooks(state);
  const chain = new SimulatedChain(state, options);

  const app = express();
  app.disable('x-powered-by');
  // Upstream answers every poll in full; conditional 304s would hide changes from naive clients.
  app.set('etag', false);
  app.use((_req, res, next) => {
    res.setHeader(UPSTREAM_SOURCE_HEADER, 'simulator');
    next();
  });
  // The simulator's own accounts (not part of Polymarket's APIs, so before the upstream faults).
  app.use('/truth', truthRouter(state, chain));
  app.use(httpFaults(state.seed, options.faults ?? {}));
  // Catch up to the clock first, so a response never lags the clock by up to a tick.
  app.use((_req, _res, next) => {
    state.sync();
    next();
  });
  app.use(express.json({ limit: '1mb' }));
  app.use('/gamma', gammaRouter(state, books));
  app.use('/clob', clobRouter(state, books));
  app.use('/data', dataRouter(state, { malformedTradeRate: options.faults?.malformedTradeRate ?? 0 }));
  app.use('/rpc', rpcRouter(chain, options.faults ?? {}));
  app.use(notFoundHandler);
  app.use(errorHandler);

  const server = app.listen(options.port ?? 0, LISTEN_HOST);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${LISTEN_HOST}:${port}`;
  const marketSocket = attachMarketWebSocket(server, state, books, options.faults ?? {});

  const reorgEvery = options.faults?.reorgEveryBlocks ?? 0;
  let lastReorgHead = chain.head();
  const timer = setInterval(() => {
    state.sync();
    if (reorgEvery > 0 && chain.head() - lastReorgHead >= reorgEvery) {
      chain.reorg(options.faults?.reorgDepth ?? 3);
      lastReorgHead = chain.head();
    }
  }, options.tickIntervalMs ?? DEFAULT_TICK_INTERVAL_MS);
  // The listener keeps a CLI process alive; the timer alone must not keep a test process running.
  timer.unref();

  return {
    baseUrl,
    gammaUrl: `${baseUrl}/gamma`,
    clobUrl: `${baseUrl}/clob`,
    dataUrl: `${baseUrl}/data`,
    wsUrl: `ws://${LISTEN_HOST}:${port}/ws/market`,
    rpcUrl: `${baseUrl}/rpc`,
    truthUrl: `${baseUrl}/truth`,
    chain,
    reorg: (depth) => {
      state.sync();
      return chain.reorg(depth);
    },
    reorgFrom: (from) => {
      state.sync();
      return chain.reorgFrom(from);
    },
    pushWebSocket: () => marketSocket.push(),
    state,
    advance: (ms) => state.advance(ms),
    close: async () => {
      clearInterval(timer);
      await marketSocket.close();
      const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      // Keep-alive connections from fetch() would otherwise hold close() open.
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * The service's upstream settings pointed at this simulator, websocket included (a REST upstream on
 * the simulator with the websocket left on Polymarket would mix real and simulated data). Its
 * contracts have no blocks before the simulated chain's genesis: their start blocks say so, so a
 * service that reads from genesis has the world's whole history (its coverage is complete).
 */
export function simulatorUpstreamEnv(
  simulator: Pick<RunningSimulator, 'gammaUrl' | 'clobUrl' | 'dataUrl' | 'wsUrl' | 'rpcUrl'>,
): Record<string, string> {
  return {
    POLYMARKET_GAMMA_URL: simulator.gammaUrl,
    POLYMARKET_CLOB_URL: simulator.clobUrl,
    POLYMARKET_DATA_URL: simulator.dataUrl,
    POLYMARKET_WS_URL: simulator.wsUrl,
    POLYGON_RPC_URL: simulator.rpcUrl,
    ...Object.fromEntries(
      [
        'CHAIN_START_BLOCK_EXCHANGE_V1',
        'CHAIN_START_BLOCK_NEG_RISK_EXCHANGE_V1',
        'CHAIN_START_BLOCK_EXCHANGE_V2',
        'CHAIN_START_BLOCK_NEG_RISK_EXCHANGE_V2',
        'CHAIN_START_BLOCK_CONDITIONAL_TOKENS',
        'CHAIN_START_BLOCK_NEG_RISK_ADAPTER',
      ].map((name) => [name, String(SIM_GENESIS_BLOCK)]),
    ),
  };
}
