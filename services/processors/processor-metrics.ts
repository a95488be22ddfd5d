/**
 * The processors' figures, kept with prom-client in a registry of their own and rendered by /metrics
 * after the hand-made families (api/metrics.ts): records, batches, dead letters and failed attempts
 * per processor, a batch-duration histogram, and each partition's lag (log end - committed offset),
 * read from the log when scraped, at most once per LAG_TTL_MS per processor.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventLog } from '../ports/event-log.js';

const processorRegistry = new Registry();

const LAG_TTL_MS = 5_000;

interface LagSource {
  log: EventLog;
  group: string;
  topics: readonly string[];
  last: { at: number; samples: Array<{ topic: string; partition: number; lag: number }> } | null;
}

const lagSources = new Map<string, LagSource>();

let instruments: ReturnType<typeof createInstruments> | null = null;

/** Counters of the position ledgers in this process (weakly held: a closed store's ledger goes away). */
const ledgerFigures = new Set<WeakRef<object>>();

function createInstruments() {
  const labelNames = ['processor'] as const;
  const registers = [processorRegistry];
  return {
    records: new Counter({
      name: 'tapeline_processor_records_total',
      help: 'Log records handled (committed) by the processor, undecodable ones included.',
      labelNames,
      registers,
    }),
    batches: new Counter({ name: 'tapeline_processor_batches_total', help: 'Batches handled and committed.', labelNames, registers }),
    deadLettered: new Counter({
      name: 'tapeline_processor_dead_lettered_total',
      help: 'Records the processor sent to the dead-letter topic (undecodable, or refused by its handler).',
      labelNames,
      registers,
    }),
    failedAttempts: new Counter({
      name: 'tapeline_processor_failed_attempts_total',
      help: 'Batch attempts that failed and were retried.',
      labelNames,
      registers,
    }),
    batchDuration: new Histogram({
      name: 'tapeline_processor_batch_duration_seconds',
      help: 'Time from a batch reaching the processor to its handler resolving (decode, dead letters, handler).',
      labelNames,
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    ledger: new Gauge({
      name: 'tapeline_position_ledger_figure',
      help: "The position ledger's counts since start, per figure: events applied, skipped (already applied, covered by chain), rewinds, relinked rewinds and relinks beyond the bound, transfers uncovered, legs waiting for a payout, state reads, stored rows read for rewinds (docs/POSITIONS.md).",
      labelNames: ['figure'] as const,
      registers,
      collect() {
        this.reset();
        const sums = new Map<string, number>();
        for (const ref of ledgerFigures) {
          const figures = ref.deref();
          if (!figures) {
            ledgerFigures.delete(ref);
            continue;
          }
          for (const [figure, value] of Object.entries(figures as Record<string, number>))
            sums.set(figure, (sums.get(figure) ?? 0) + value);
        }
        for (const [figure, value] of sums) this.set({ figure }, value);
      },
    }),
    lag: new Gauge({
      name: 'tapeline_processor_lag_messages',
      help: "Records on the log not yet committed by the processor's consumer group, per topic and partition.",
      labelNames: ['processor', 'topic', 'partition'] as const,
      registers,
      async collect() {
        this.reset();
        const now = Date.now();
        await Promise.all(
          [...lagSources.entries()].map(async ([processor, source]) => {
            if (!source.last || now - source.last.at >= LAG_TTL_MS) {
              try {
                source.last = { at: now, samples: await readLag(source) };
              } catch {
                // A log that cannot answer now (closing, broker away) leaves the partitions unreported.
                source.last = null;
                return;
              }
            }
            for (const s of source.last.samples) this.set({ processor, topic: s.topic, partition: String(s.partition) }, s.lag);
          }),
        );
      },
    }),
  };
}

async function readLag(source: LagSource) {
  const samples: Array<{ topic: string; partition: number; lag: number }> = [];
  for (const topic of source.topics) {
    for (const p of await source.log.positions(source.group, topic)) {
      samples.push({ topic, partition: p.partition, lag: Math.max(0, p.endOffset - p.committedOffset) });
    }
  }
  return samples;
}

export function processorInstruments() {
  instruments ??= createInstruments();
  return instruments;
}

/** Reports the group's lag under the processor's name until the returned function is called. */
export function trackLag(processor: string, log: EventLog, group: string, topics: readonly string[]): () => void {
  const source: LagSource = { log, group, topics, last: null };
  lagSources.set(processor, source);
  return () => {
    if (lagSources.get(processor) === source) lagSources.delete(processor);
  };
}

/** Reports a position ledger's counters (read when scraped) for as long as the object lives. */
export function trackLedgerFigures<T extends Record<keyof T, number>>(figures: T): void {
  processorInstruments();
  ledgerFigures.add(new WeakRef(figures));
}

/** The processors' figures in the Prometheus text format. */
export function processorMetricsText(): Promise<string> {
  processorInstruments();
  return processorRegistry.metrics();
}
