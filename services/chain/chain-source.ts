/**
 * The chain source as part of ingestion: a ChainFollower over the JSON-RPC reader, stepping as fast as
 * the rate budget allows while behind and once per block time at the head, backing off on failures.
 * Its health is a source like the others (`chain.polygon`: lag = now - time of the last block read,
 * against confirmations x 2 s + 15 s), plus the chain's own figures (head, final and ingested block).
 * While caught up it gives the rest of each poll to the history fill (CHAIN_HISTORY: history-fill.ts).
 *
 * Never mixes upstreams: a simulator (loopback) Gamma with a real RPC, or the reverse, would label
 * real fills simulated or the other way round, so the source stays off and says why.
 */
import type { ChainConfig } from '../config.js';
import type { EventPublisher } from '../events/publisher.js';
import type { Source } from '../events/types.js';
import { failureLog as failureLogOf, UPSTREAM_HINT } from '../ingest/failure-log.js';
import type { UpstreamReachability } from '../ingest/upstream-reachability.js';
import type { SourceHealth } from '../ingest/source-health.js';
import { type UpstreamClient, UpstreamError } from '../ingest/upstream-client.js';
import type { Logger } from '../logger.js';
import type { ChainReader } from '../ports/chain-reader.js';
import { type BackoffPolicy, backoffMs } from '../shared/backoff.js';
import { isLoopback } from '../shared/loopback.js';
import type { ChainCatalog } from './catalog.js';
import { CatalogLookup } from './catalog-lookup.js';
import { ContractBook } from './contract-book.js';
import { ChainFollower, type ChainStatus } from './follower.js';
import { chainLedger } from '../read-models/chain-ledger/index.js';
import { HistoryFill, type HistoryFiles } from '../backfill/history-fill.js';
import { openChainReader } from '../ingest/upstreams.js';

const CHAIN_SOURCE = 'chain.polygon';
const FAILURE_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 60_000, jitter: 'full' };
/** The simulator's client version starts with this; everything read from it is labelled `simulator`. */
const SIMULATOR_CLIENT = /^tapeline-simulator\//;
/** Polygon's block time, for the freshness target. */
const BLOCK_MS = 2_000;

export interface ChainSourceOptions {
  chain: ChainConfig;
  gammaUrl: string;
  checkpointFile: string;
  publisher: EventPublisher;
  health: SourceHealth;
  logger: Logger;
  catalog: ChainCatalog;
  gamma: UpstreamClient;
  /** Told whether the RPC could be reached at each step. */
  reachability?: UpstreamReachability;
  /** For tests: another reader than the JSON-RPC one. */
  reader?: ChainReader;
  /** Where the history fill keeps its plan and chunk (CHAIN_HISTORY); absent: no history fill. */
  historyFiles?: HistoryFiles;
}

export interface ChainSource {
  status(): ChainStatus | null;
  /** Resolves after the first step was attempted (succeeded or not). */
  readonly firstStep: Promise<void>;
  stop(): Promise<void>;
}

/** Why the chain source cannot run with this configuration, or null when it can. */
export function chainSourceRefusal(chain: ChainConfig, gammaUrl: string): string | null {
  if (chain.rpcUrl === null) return 'POLYGON_RPC_URL is empty: trades come from the Data API alone (taker fills only)';
  if (isLoopback(chain.rpcUrl) !== isLoopback(gammaUrl))
    return 'POLYGON_RPC_URL and POLYMARKET_GAMMA_URL point at different upstreams (one local, one not); the chain source stays off';
  return null;
}

export function startChainSource(options: ChainSourceOptions): ChainSource | null {
  const { chain, logger } = options;
  const refusal = chainSourceRefusal(chain, options.gammaUrl);
  if (refusal) {
    (chain.rpcUrl === null ? logger.info : logger.error).call(logger, refusal);
    return null;
  }
  options.reachability?.register('rpc', chain.rpcUrl as string);
  const reader = options.reader ?? openChainReader(chain);
  // The catalog names the legacy AMM contracts (Gamma marketMakerAddress) whose FPMM events are read.
  const book = new ContractBook(chain.contracts, { readTransfers: chain.readTransfers, marketMakers: options.catalog });
  options.health.register(CHAIN_SOURCE, chain.confirmations * BLOCK_MS + 15_000);
  let follower: ChainFollower | null = null;
  let history: HistoryFill | null = null;
  let historyFailures = 0;
  let historyResumesAt = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | null = null;
  let failures = 0;
  const failureLog = failureLogOf(logger);

  const connect = async (): Promise<ChainFollower> => {
    const [chainId, clientVersion] = await Promise.all([reader.chainId(), reader.clientVersion()]);
    const source: Source = clientVersion !== null && SIMULATOR_CLIENT.test(clientVersion) ? 'simulator' : 'polymarket';
    logger.info({ chainId, clientVersion, source, rpc: new URL(chain.rpcUrl as string).host }, 'chain source connected');
    const live = new ChainFollower({
      reader,
      book,
      catalog: options.catalog,
      lookup: new CatalogLookup(options.gamma, options.catalog, options.publisher),
      publisher: options.publisher,
      logger,
      checkpointFile: options.checkpointFile,
      chainId,
      source,
      confirmations: chain.confirmations,
      reorgWindowBlocks: chain.reorgWindowBlocks,
      logRangeBlocks: chain.logRangeBlocks,
      logRangeMaxBlocks: chain.logRangeMaxBlocks,
      startBlock: chain.startBlock,
      negRiskAdapter: chain.contracts.negRiskAdapter.address,
      holdMaxMs: chain.holdMaxMs,
      ledgerPartitions: chainLedger.partitions,
    });
    if (chain.history && options.historyFiles)
      history = new HistoryFill({
        live,
        files: options.historyFiles,
        chunkBlocks: chain.historyChunkBlocks,
        chain,
        reader,
        book,
        catalog: options.catalog,
        lookup: new CatalogLookup(options.gamma, options.catalog, options.publisher),
        publisher: options.publisher,
        logger,
        source,
        chainId,
      });
    return live;
  };

  /**
   * One range of history while the head's follower is caught up (it keeps the budget it needs; the
   * history gets what is left). Its failures back off the history alone. Returns whether it read.
   */
  const historyStep = async (): Promise<boolean> => {
    if (!history || Date.now() < historyResumesAt) return false;
    try {
      const worked = await history.step();
      historyFailures = 0;
      failureLog.succeeded('chain history step');
      return worked;
    } catch (error) {
      historyFailures++;
      const delay = backoffMs(FAILURE_BACKOFF, historyFailures);
      historyResumesAt = Date.now() + delay;
      failureLog.failed('chain history step', error, `backing off ${Math.round(delay / 1000)} s; the head is followed meanwhile`);
      return false;
    }
  };

  /** One step; returns the delay before the next. */
  const step = async (): Promise<number> => {
    try {
      follower ??= await connect();
      const result = await follower.step();
      failures = 0;
      options.reachability?.succeeded('rpc');
      failureLog.succeeded('chain step');
      const status = follower.status();
      options.health.succeeded(CHAIN_SOURCE, result.published, result.deadLettered, status.ingested_block_time_ms);
      if (!result.caughtUp) return 0;
      return (await historyStep()) ? 0 : chain.pollIntervalMs;
    } catch (error) {
      failures++;
      // Gamma's failures (the catalog lookup) are told by its own client.
      if (!(error instanceof UpstreamError)) options.reachability?.failed('rpc', error);
      options.health.failed(CHAIN_SOURCE, error);
      failureLog.failed('chain step', error, `backing off ${Math.round(backoffMs(FAILURE_BACKOFF, failures) / 1000)} s; ${UPSTREAM_HINT}`);
      return backoffMs(FAILURE_BACKOFF, failures);
    }
  };

  let firstDone: () => void = () => undefined;
  const firstStep = new Promise<void>((resolve) => (firstDone = resolve));
  const running = (async () => {
    while (!stopped) {
      const delay = await step();
      firstDone();
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, delay);
      });
    }
    firstDone();
  })();

  return {
    status: () => follower?.status() ?? null,
    firstStep,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await running;
      await reader.close();
    },
  };
}
