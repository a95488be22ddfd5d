/**
 * `npm run backfill -- [--from <ISO date>] [--to <ISO date>] [--market <condition id or slug> ...]`
 * `npm run backfill -- --source chain [--from-block <n> | --from <date>] [--to-block <n> | --to <date>]`
 * (settlement events from Polygon over a block range: services/backfill/chain-backfill.ts)
 *
 * Backfills trades (Data API) and price history (CLOB /prices-history) for the chosen markets (default:
 * every active market) and range (default: the last 7 days) into the same event log the service uses,
 * then (unless --no-index) runs the sink until ClickHouse holds everything, so the data is queryable
 * when the command ends. Progress: a bar on a terminal, plain lines otherwise (stderr); a JSON summary
 * on stdout. Interrupt it any way (Ctrl-C, kill -9) and run the same command again: it resumes from
 * DATA_DIR/ingest/backfill-checkpoint.json. Re-running a finished backfill is harmless.
 *
 * The service must not be running on the same DATA_DIR (see exclusive-access.ts for why); the command
 * says so and exits 3 when it is. Exit codes: 0 done, 2 bad arguments, 3 data folder busy,
 * 4 unknown market, 130 stopped by a signal (resumable), 1 anything else.
 */
import path from 'node:path';
import { pino } from 'pino';
import { openAnalyticsStore } from '../analytics/open-analytics.js';
import { ChainCatalog } from '../chain/catalog.js';
import { CatalogLookup } from '../chain/catalog-lookup.js';
import { chainSourceRefusal } from '../chain/chain-source.js';
import { ContractBook } from '../chain/contract-book.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { knownMarkets } from '../read-models/markets/queries.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { openEventLog } from '../eventlog/open-event-log.js';
import { CheckpointFile } from '../ingest/checkpoint.js';
import { EventPublisher } from '../events/publisher.js';
import type { EventLog } from '../ports/event-log.js';
import { assertNotSimulatorData } from '../shared/data-dir-guard.js';
import { allTopicSpecs } from '../read-models/registry.js';
import { sinkLag, startSink } from '../sink/sink-service.js';
import { parseBackfillArguments, requestKey, resolveRange, UsageError, type BackfillArguments } from './arguments.js';
import { emptyTotals, plannedMarket, runBackfill, type BackfillCheckpoint } from './backfill-run.js';
import { chainBackfillFiles, runChainBackfill } from './chain-backfill.js';
import { claimDataDirPrivately } from '../shared/data-dir-privacy.js';
import { acquireBackfillAccess, DataDirBusyError } from './exclusive-access.js';
import { planMarkets, UnknownMarketError } from './plan-markets.js';
import { BackfillProgress } from './progress.js';
import type { UpstreamClient } from '../ingest/upstream-client.js';
import { openChainReader, openUpstream } from '../ingest/upstreams.js';

const say = (text: string) => process.stderr.write(`backfill: ${text}\n`);

async function main(): Promise<number> {
  const args = parseBackfillArguments(process.argv.slice(2));
  const config = loadConfig();
  assertNotSimulatorData(config.dataDir, config.upstream.gammaUrl);
  if (config.engines.kafkaBrokers) {
    // Publishing into the embedded log while the service reads Kafka would lose the backfill silently.
    say('KAFKA_BROKERS is set, but this build only has the embedded event log');
    return 1;
  }
  claimDataDirPrivately(config.dataDir, { warn: (details, message) => say(`${message} (${JSON.stringify(details)})`) });
  const lock = acquireBackfillAccess(config.dataDir);
  let log: EventLog | null = null;
  try {
    log = await openEventLog(config);
    await log.createTopics(allTopicSpecs());
    const publisher = new EventPublisher(log);
    if (args.source === 'chain') return await chainMain(args, config, log, publisher);
    const gamma = openUpstream(config, 'gamma');
    const data = openUpstream(config, 'data');
    const clob = openUpstream(config, 'clob');
    const checkpointFile = new CheckpointFile<BackfillCheckpoint | null>(
      path.join(config.dataDir, 'ingest', 'backfill-checkpoint.json'),
      null,
    );

    const start = await startingPoint(args, checkpointFile, gamma, publisher);
    if (!start) return 2;

    let stopRequested = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopRequested) process.exit(130);
      stopRequested = true;
      say(`${signal}: stopping after the current page (send it again to quit at once; either way the run resumes)`);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    const progress = new BackfillProgress(process.stderr, start);
    const { outcome, checkpoint } = await runBackfill(start, {
      data,
      clob,
      publisher,
      checkpointFile,
      listener: progress,
      shouldStop: () => stopRequested,
    });
    progress.finish(checkpoint, outcome);
    if (outcome === 'stopped') {
      printSummary('stopped', checkpoint);
      return 130;
    }
    // Finished: the next run with the same arguments starts a fresh (idempotent) pass.
    checkpointFile.write(null);
    if (args.index) await indexEverything(config, log);
    printSummary('complete', checkpoint);
    return 0;
  } finally {
    await log?.close();
    lock.release();
  }
}

/** Resumes the checkpoint of the same request, or plans a new run (publishing the markets it covers). */
async function startingPoint(
  args: BackfillArguments,
  checkpointFile: CheckpointFile<BackfillCheckpoint | null>,
  gamma: UpstreamClient,
  publisher: EventPublisher,
): Promise<BackfillCheckpoint | null> {
  const key = requestKey(args);
  const existing = checkpointFile.read();
  if (existing && !args.restart) {
    if (existing.key === key) {
      say(
        `resuming: ${existing.next_market} of ${existing.markets.length} markets done (range ${new Date(existing.from_ms).toISOString()} .. ${new Date(existing.to_ms).toISOString()})`,
      );
      return existing;
    }
    say(
      `an unfinished backfill with other arguments (${existing.key}) is checkpointed; run it again with those arguments to finish it, or pass --restart to drop it`,
    );
    return null;
  }
  const nowMs = Date.now();
  const { fromMs, toMs } = resolveRange(args, nowMs);
  const planned = await planMarkets(gamma, args.markets, nowMs);
  // Markets first, so trades of closed or delisted markets have their market row too.
  await publisher.deadLetter(planned.deadLetters);
  await publisher.publish('markets', planned.markets);
  say(
    `planned ${planned.markets.length} markets, ${new Date(fromMs).toISOString()} .. ${new Date(toMs).toISOString()}, price points every ${args.fidelityMinutes} min`,
  );
  const start: BackfillCheckpoint = {
    version: 1,
    key,
    from_ms: fromMs,
    to_ms: toMs,
    fidelity_minutes: args.fidelityMinutes,
    markets: planned.markets.map(plannedMarket),
    next_market: 0,
    trades_offset: 0,
    trades_done: false,
    history_tokens_done: 0,
    totals: { ...emptyTotals(), dead_letters: planned.deadLetters.length },
  };
  checkpointFile.write(start);
  return start;
}

/** The chain backfill: a bounded follower over the RPC, then the same indexing step. */
async function chainMain(args: BackfillArguments, config: Config, log: EventLog, publisher: EventPublisher): Promise<number> {
  const refusal = chainSourceRefusal(config.chain, config.upstream.gammaUrl);
  if (refusal) {
    say(refusal);
    return 2;
  }
  const logger = pino({ level: config.logLevel === 'info' ? 'warn' : config.logLevel }, pino.destination(2));
  const reader = openChainReader(config.chain);
  const [chainId, clientVersion] = await Promise.all([reader.chainId(), reader.clientVersion()]);
  const source = clientVersion !== null && /^tapeline-simulator\//.test(clientVersion) ? 'simulator' : 'polymarket';
  const store = await openAnalyticsStore(config);
  try {
    // Markets the service already knows; the rest are looked up on Gamma as the chain names them.
    const catalog = new ChainCatalog();
    catalog.add(await knownMarkets(store));
    const gamma = openUpstream(config, 'gamma');
    let stopRequested = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopRequested) process.exit(130);
      stopRequested = true;
      say(`${signal}: stopping after the current range (send it again to quit at once; either way the run resumes)`);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const result = await runChainBackfill({
      args,
      config,
      reader,
      book: new ContractBook(config.chain.contracts, { readTransfers: config.chain.readTransfers, marketMakers: catalog }),
      catalog,
      lookup: new CatalogLookup(gamma, catalog, publisher),
      publisher,
      logger,
      source,
      chainId,
      files: chainBackfillFiles(config.dataDir),
      out: process.stderr,
      shouldStop: () => stopRequested,
    });
    const summary = {
      outcome: result.outcome,
      source: 'chain',
      from_block: result.request.from_block,
      to_block: result.request.to_block,
      ...result.request.totals,
      waiting_for_markets: result.pending,
    };
    if (result.outcome === 'stopped') {
      process.stdout.write(`${JSON.stringify(summary)}\n`);
      return 130;
    }
    if (result.pending > 0)
      say(`${result.pending} events wait for markets Gamma does not list yet; the service's chain source keeps retrying them`);
    if (args.index) await indexEverything(config, log, store);
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  } finally {
    await reader.close();
    await store.close();
  }
}

/** Runs the service's own sink (same consumer group) until it has caught up with the log. */
async function indexEverything(config: Config, log: EventLog, opened?: AnalyticsStore): Promise<void> {
  say('indexing into ClickHouse');
  const logger = pino({ level: config.logLevel === 'info' ? 'warn' : config.logLevel }, pino.destination(2));
  const store = opened ?? (await openAnalyticsStore(config));
  const sink = await startSink(log, store, logger);
  try {
    for (;;) {
      const lag = Object.values(await sinkLag(log)).reduce((sum, n) => sum + n, 0);
      if (lag === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await sink.stop();
    if (!opened) await store.close();
  }
}

function printSummary(outcome: 'complete' | 'stopped', checkpoint: BackfillCheckpoint): void {
  process.stdout.write(
    `${JSON.stringify({ outcome, from: new Date(checkpoint.from_ms).toISOString(), to: new Date(checkpoint.to_ms).toISOString(), markets: checkpoint.markets.length, ...checkpoint.totals })}\n`,
  );
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof DataDirBusyError) {
      say(error.message);
      process.exit(3);
    }
    if (error instanceof UnknownMarketError) {
      say(error.message);
      process.exit(4);
    }
    say(error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
