/**
 * `npm run import -- <file or directory> [...] [--no-index]`
 *
 * Loads raw Polygon logs from Parquet or CSV files (paradigmxyz/cryo's `logs` dataset, blockchain-etl's
 * `logs.csv`; cryo `blocks` files among the paths give block times and hashes) into the service's
 * event log through the chain source's decoder (services/chain/log-import.ts), then (unless
 * --no-index) runs the sink until ClickHouse holds everything. Progress on stderr, a JSON summary on
 * stdout. Rerunning an import, or importing blocks the chain source already read, adds nothing.
 *
 * The service must not be running on the same DATA_DIR (exclusive-access.ts). Exit codes: 0 done,
 * 2 bad arguments or files, 3 data folder busy, 1 anything else.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openAnalyticsStore } from '../analytics/open-analytics.js';
import { ChainCatalog } from '../chain/catalog.js';
import { CatalogLookup } from '../chain/catalog-lookup.js';
import { chainSourceRefusal } from '../chain/chain-source.js';
import { ContractBook } from '../chain/contract-book.js';
import { openFileReader, UnreadableFileError } from '../chain/log-files.js';
import { ImportUsageError, importLogFiles } from '../chain/log-import.js';
import { NegRiskBook } from '../chain/neg-risk-book.js';
import { POLYGON_CHAIN_ID } from '../chain/polygon-contracts.js';
import { ConfigError, loadConfig } from '../config.js';
import { openEventLog } from '../eventlog/open-event-log.js';
import { EventPublisher } from '../events/publisher.js';
import type { EventLog } from '../ports/event-log.js';
import type { ChainReader } from '../ports/chain-reader.js';
import { knownMarkets } from '../read-models/markets/queries.js';
import { allTopicSpecs } from '../read-models/registry.js';
import { assertNotSimulatorData } from '../shared/data-dir-guard.js';
import { claimDataDirPrivately } from '../shared/data-dir-privacy.js';
import { isLoopback } from '../shared/loopback.js';
import { type SinkService, sinkLag, startSink } from '../sink/sink-service.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { acquireBackfillAccess, DataDirBusyError } from './exclusive-access.js';
import { openChainReader, openUpstream } from '../ingest/upstreams.js';

const USAGE = 'usage: npm run import -- <logs or blocks file | directory> [...] [--no-index]';
const say = (text: string) => process.stderr.write(`import: ${text}\n`);

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const index = !argv.includes('--no-index');
  const unknown = argv.filter((a) => a.startsWith('--') && a !== '--no-index');
  const paths = argv.filter((a) => !a.startsWith('--'));
  if (unknown.length > 0 || paths.length === 0) {
    say(unknown.length > 0 ? `unknown option ${unknown[0]}; ${USAGE}` : USAGE);
    return 2;
  }
  const missing = paths.filter((p) => !fs.existsSync(p));
  if (missing.length > 0) {
    say(`no such file or directory: ${missing.join(', ')}`);
    return 2;
  }
  const config = loadConfig();
  assertNotSimulatorData(config.dataDir, config.upstream.gammaUrl);
  if (config.engines.kafkaBrokers) {
    say('KAFKA_BROKERS is set, but this build only has the embedded event log');
    return 1;
  }
  claimDataDirPrivately(config.dataDir, { warn: (details, message) => say(`${message} (${JSON.stringify(details)})`) });
  const lock = acquireBackfillAccess(config.dataDir);
  let log: EventLog | null = null;
  let store: AnalyticsStore | null = null;
  let reader: ChainReader | null = null;
  let sink: SinkService | null = null;
  // chDB is one engine per process: the files are read on the store's own folder when the store is chDB.
  const scratch = config.engines.clickhouseUrl ? fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-import-')) : null;
  const session = openFileReader(scratch ?? path.join(config.dataDir, 'chdb'));
  try {
    log = await openEventLog(config);
    await log.createTopics(allTopicSpecs());
    const publisher = new EventPublisher(log);
    store = await openAnalyticsStore(config);
    // Markets the service already knows; the rest are looked up on Gamma as the logs name them.
    const catalog = new ChainCatalog();
    catalog.add(await knownMarkets(store));
    const gamma = openUpstream(config, 'gamma');
    // The RPC is asked only for headers of blocks the files do not have.
    reader = chainSourceRefusal(config.chain, config.upstream.gammaUrl) === null ? openChainReader(config.chain) : null;
    // The sink indexes while the files are read: the engine's inserts run beside the decoding.
    sink = index
      ? await startSink(log, store, pino({ level: config.logLevel === 'info' ? 'warn' : config.logLevel }, pino.destination(2)))
      : null;
    const summary = await importLogFiles({
      paths,
      session,
      book: new ContractBook(config.chain.contracts, { readTransfers: config.chain.readTransfers }),
      catalog,
      lookup: new CatalogLookup(gamma, catalog, publisher),
      negRisk: new NegRiskBook(
        config.chain.contracts.negRiskAdapter.address.toLowerCase(),
        path.join(config.dataDir, 'ingest', 'chain-neg-risk.json'),
      ),
      publisher,
      // As the chain source labels what it reads from the simulator (whose Gamma is local).
      source: isLoopback(config.upstream.gammaUrl) ? 'simulator' : 'polymarket',
      chainId: POLYGON_CHAIN_ID,
      holdMaxMs: config.chain.holdMaxMs,
      headers: reader,
      headersName: reader ? new URL(config.chain.rpcUrl as string).host : undefined,
      out: process.stderr,
    });
    if (sink) await indexEverything(log);
    process.stdout.write(`${JSON.stringify({ outcome: 'complete', indexed: index, ...summary })}\n`);
    return 0;
  } finally {
    await sink?.stop();
    session.close();
    await reader?.close();
    await store?.close();
    await log?.close();
    lock.release();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Waits until the service's own sink (same consumer group) has caught up with the log. */
async function indexEverything(log: EventLog): Promise<void> {
  say('indexing into ClickHouse');
  for (;;) {
    const lag = Object.values(await sinkLag(log)).reduce((sum, n) => sum + n, 0);
    if (lag === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ImportUsageError || error instanceof UnreadableFileError) {
      say(error.message);
      process.exit(2);
    }
    if (error instanceof DataDirBusyError) {
      say(error.message);
      process.exit(3);
    }
    say(error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
