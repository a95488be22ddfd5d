/**
 * Processor runner overhead: trades/s read from the file log and decoded by a processor on the runner
 * (decode, dead-letter check, metrics, commit) as a ratio to a hand-rolled consumer loop doing the
 * same decode over the same log, alternating in one process and run (median of ROUNDS each). The
 * handler does nothing, so the ratio is the runner's own cost. Writes bench/results/processor-runner.json.
 *
 *   npm run bench:processors     (BENCH_TRADES=200000, BENCH_ROUNDS=5 by default)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import { type EventLog, UNDECODABLE_HEADER } from '../services/ports/event-log.js';
import { defineProcessor, runProcessor } from '../services/processors/processor.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../services/read-models/registry.js';
import { syntheticTrades } from './synthetic-trades.js';

const TRADES = Number(process.env.BENCH_TRADES ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BATCH = 2_000;
const here = path.dirname(fileURLToPath(import.meta.url));

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

/** The loop each consumer wrote for itself before the runner: decode, skip what fails, count. */
async function handRolled(log: EventLog, group: string): Promise<number> {
  let seen = 0;
  const start = performance.now();
  const consumer = await log.runConsumer({
    groupId: group,
    topics: [STREAMS.trades.topic],
    maxBatchSize: BATCH,
    handleBatch: async (batch) => {
      const decoded = [];
      for (const message of batch.messages) {
        try {
          if (message.headers[UNDECODABLE_HEADER] !== undefined) throw new Error('flagged');
          decoded.push({ event: STREAMS.trades.codec.decode(message.value), message });
        } catch {
          // skipped
        }
      }
      seen += decoded.length;
    },
  });
  await until(() => seen >= TRADES);
  const seconds = (performance.now() - start) / 1000;
  await consumer.stop();
  return seconds;
}

async function onRunner(log: EventLog, group: string): Promise<number> {
  let seen = 0;
  const start = performance.now();
  const processor = await runProcessor(
    log,
    defineProcessor({
      name: 'signals',
      group,
      streams: [STREAMS.trades],
      maxBatchSize: BATCH,
      handle: async (batch) => {
        seen += batch.records.length;
      },
    }),
    pino({ level: 'warn' }),
  );
  await until(() => seen >= TRADES);
  const seconds = (performance.now() - start) / 1000;
  await processor.stop();
  return seconds;
}

async function main() {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-runner-'));
  const log = await openFileEventLog({ directory: workDir, schemas: topicSchemas() });
  await log.createTopics(allTopicSpecs());
  const trades = syntheticTrades(TRADES);
  for (let i = 0; i < trades.length; i += 5_000) {
    await log.produce(
      STREAMS.trades.topic,
      trades.slice(i, i + 5_000).map((t) => ({ key: t.market_id, value: STREAMS.trades.codec.encode(t), timestamp: t.timestamp_ms })),
    );
  }
  const handRolledSeconds: number[] = [];
  const runnerSeconds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    handRolledSeconds.push(await handRolled(log, `bench-hand-${round}`));
    runnerSeconds.push(await onRunner(log, `bench-runner-${round}`));
  }
  await log.close();
  fs.rmSync(workDir, { recursive: true, force: true });

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const hand = median(handRolledSeconds);
  const runner = median(runnerSeconds);
  const result = {
    benchmark: 'processor runner: file log -> decode -> no-op handler, runner vs hand-rolled loop',
    measured_at: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? 'unknown',
      memory_gb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      load_average_1m: round(os.loadavg()[0]!),
    },
    trades: TRADES,
    batch_size: BATCH,
    rounds: ROUNDS,
    hand_rolled_loop: { seconds: handRolledSeconds.map(round), median_trades_per_second: Math.round(TRADES / hand) },
    processor_runner: { seconds: runnerSeconds.map(round), median_trades_per_second: Math.round(TRADES / runner) },
    ratio_runner_to_hand_rolled: round(hand / runner),
  };
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'processor-runner.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

await main();
