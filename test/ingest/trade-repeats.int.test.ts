/**
 * The trade feed's publishers overlap: the live poll of the global feed and each busy market's history
 * read (TRADES_BACKFILL_MARKETS) run side by side over the same recent trades, and a restart polls
 * again what it polled before. The log must still hold each trade once: every record of the trades
 * topic has an event_id no other record has, across a restart of the ingest on the same data.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../services/config.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { startIngest } from '../../services/ingest/ingest-service.js';
import { STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { simulatorUpstreamEnv, startSimulator } from '../../simulator/server.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { T0 } from '../support/events.js';
import { waitFor } from '../support/http.js';

const silent = pino({ level: 'silent' });

/** Every event_id of the trades topic, one entry per record. */
async function tradeRecordIds(log: EventLog): Promise<string[]> {
  const ids: string[] = [];
  for (const { partition, startOffset, endOffset } of await log.partitionOffsets(STREAMS.trades.topic)) {
    for (let offset = startOffset; offset < endOffset; ) {
      const messages = await log.read(STREAMS.trades.topic, partition, offset, 1_000);
      if (messages.length === 0) break;
      ids.push(...messages.map((m) => m.headers.event_id!));
      offset = messages.at(-1)!.offset + 1;
    }
  }
  return ids;
}

test('the live poll, the market history reads and a restart publish each trade once', async () => {
  let now = T0;
  const simulator = await startSimulator({
    port: 0,
    seed: 23,
    marketCount: 10,
    walletCount: 12,
    historicTrades: 600,
    historyHours: 6,
    clock: () => now,
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-trade-repeats-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...simulatorUpstreamEnv(simulator),
    MARKETS_POLL_INTERVAL_MS: '300',
    TRADES_POLL_INTERVAL_MS: '100',
    TRADES_BACKFILL_MARKETS: '10',
    LOG_LEVEL: 'silent',
  });
  const openLog = () => openFileEventLog({ directory: path.join(dataDir, 'log'), schemas: topicSchemas() });
  try {
    let log = await openLog();
    let ingest = await startIngest(config, log, silent);
    // New trades keep coming while the history reads run, so the two overlap at the newest trades.
    const ticker = setInterval(() => (now += 5_000), 100);
    try {
      // Every active market's history is read (TRADES_BACKFILL_MARKETS covers them all).
      await waitFor(
        async () => {
          const active = ingest.pollers.markets.markets.filter((m) => m.status === 'active').length;
          return active > 0 && ingest.pollers.trades.backfilledMarkets.size >= active;
        },
        60_000,
        'every market history read',
      );
      const first = await tradeRecordIds(log);
      expect(first.length).toBeGreaterThan(600);
      expect(new Set(first).size).toBe(first.length);
      await ingest.stop();
      await log.close();

      // The same data again: the market reads are done, the live poll goes on from its checkpoint.
      log = await openLog();
      ingest = await startIngest(config, log, silent);
      const before = first.length;
      await waitFor(async () => (await tradeRecordIds(log)).length > before + 20, 30_000, 'new trades after the restart');
      const all = await tradeRecordIds(log);
      expect(new Set(all).size).toBe(all.length);
    } finally {
      clearInterval(ticker);
      await ingest.stop();
      await log.close();
    }
  } finally {
    await simulator.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);
