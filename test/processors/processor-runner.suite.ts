/**
 * The processor runner over a real event log (run against the file log and Kafka): a poison record
 * (undecodable, or flagged by the log) is dead-lettered and its partition carries on; a group's
 * checkpoint survives a restart with nothing lost or handled twice; stop waits for the batch in flight
 * and commits it; the figures reach the prom-client registry, the lag per partition included.
 */
import { pino } from 'pino';
import type { DeadLetter } from '../../services/events/dead-letters.js';
import { EventPublisher } from '../../services/events/publisher.js';
import { type EventLog, UNDECODABLE_HEADER } from '../../services/ports/event-log.js';
import { defineProcessor, eventsOf, type ProcessorBatch, runProcessor } from '../../services/processors/processor.js';
import { processorMetricsText } from '../../services/processors/processor-metrics.js';
import { allTopicSpecs, STREAMS } from '../../services/read-models/registry.js';
import { conditionId, tradeExecuted } from '../support/events.js';
import { waitFor } from '../support/http.js';

export interface RunnerLogFixture {
  /** A log with every topic of the registry, empty. */
  log: EventLog;
  /** Writes bytes to a topic as they are, past any encoding the log applies on produce. */
  produceRaw(topic: string, key: string, value: Buffer): Promise<void>;
  close(): Promise<void>;
}

export function describeProcessorRunner(logName: string, open: () => Promise<RunnerLogFixture>, waitMs: number): void {
  describe(`processor runner on ${logName}`, () => {
    const silent = pino({ level: process.env.TEST_LOG ?? 'silent' });
    const MARKET = conditionId(0x51);
    let fixture: RunnerLogFixture;
    let log: EventLog;
    let publisher: EventPublisher;

    beforeAll(async () => {
      fixture = await open();
      log = fixture.log;
      await log.createTopics(allTopicSpecs());
      publisher = new EventPublisher(log);
    }, 120_000);
    afterAll(() => fixture.close());

    const trades = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, i) => tradeExecuted({ event_id: `${prefix}-${i}`, market_id: MARKET }));

    /** Every dead letter on the log so far. */
    async function deadLetters(): Promise<DeadLetter[]> {
      const out: DeadLetter[] = [];
      const group = `probe-${Math.random()}`;
      const consumer = await log.runConsumer({
        groupId: group,
        topics: [STREAMS.deadLetters.topic],
        handleBatch: async (batch) => {
          for (const m of batch.messages) out.push(STREAMS.deadLetters.codec.decode(m.value));
        },
      });
      const [end] = await log.positions(group, STREAMS.deadLetters.topic);
      await waitFor(async () => out.length >= end!.endOffset, waitMs, 'dead letters read');
      await consumer.stop();
      return out;
    }

    /** Committed and end offsets of the trades partition MARKET lands in. */
    async function partitionOf(group: string) {
      const positions = await log.positions(group, STREAMS.trades.topic);
      return positions.find((p) => p.endOffset > 0)!;
    }

    test(
      'a poison record is dead-lettered with its coordinates and the partition carries on',
      async () => {
        const [before, after] = [trades('before', 2), trades('after', 2)];
        await publisher.publish('trades', before);
        await fixture.produceRaw(STREAMS.trades.topic, MARKET, Buffer.from('not avro at all'));
        await log.produce(STREAMS.trades.topic, [
          // A value that decodes, flagged by the log (a writer schema it could not resolve): never handed on.
          {
            key: MARKET,
            value: STREAMS.trades.codec.encode(tradeExecuted({ event_id: 'flagged', market_id: MARKET })),
            headers: { [UNDECODABLE_HEADER]: 'writer schema gone' },
          },
        ]);
        await publisher.publish('trades', after);
        const seen: string[] = [];
        const processor = await runProcessor(
          log,
          defineProcessor({
            name: 'signals',
            group: 'runner-poison',
            streams: [STREAMS.trades],
            maxBatchSize: 100,
            handle: async (batch) => {
              seen.push(...eventsOf(batch, STREAMS.trades).map((t) => t.event_id));
            },
          }),
          silent,
        );
        await waitFor(async () => seen.length >= 4, waitMs, 'the valid trades handled');
        await waitFor(async () => (await partitionOf('runner-poison')).committedOffset === 6, waitMs, 'the batch committed');
        await processor.stop();

        expect(seen).toEqual(['before-0', 'before-1', 'after-0', 'after-1']);
        expect(processor.stats).toMatchObject({ dead_lettered: 2, records: 6, failed_attempts: 0 });
        const letters = await deadLetters();
        expect(letters.map((l) => [l.stage, l.reason])).toEqual([
          ['signals', expect.stringMatching(/^undecodable trades event: /)],
          ['signals', 'undecodable trades event: writer schema gone'],
        ]);
        const { partition } = await partitionOf('runner-poison');
        expect(letters.map((l) => l.origin)).toEqual([`${STREAMS.trades.topic}/${partition}/2`, `${STREAMS.trades.topic}/${partition}/3`]);
        expect(Buffer.from(letters[0]!.raw, 'base64').toString()).toBe('not avro at all');
        const text = await processorMetricsText();
        expect(text).toContain('tapeline_processor_dead_lettered_total{processor="signals"} 2');
        expect(text).toMatch(/tapeline_processor_batch_duration_seconds_count\{processor="signals"\} [1-9]/);
      },
      4 * waitMs,
    );

    test(
      'the checkpoint survives a restart: nothing lost, nothing handled twice, a failed batch redelivered',
      async () => {
        await publisher.publish('trades', trades('restart', 10));
        const handled: string[] = [];
        let failOnce = true;
        const definition = defineProcessor({
          name: 'copy',
          group: 'runner-restart',
          streams: [STREAMS.trades],
          maxBatchSize: 3,
          handle: async (batch: ProcessorBatch) => {
            const ids = eventsOf(batch, STREAMS.trades)
              .map((t) => t.event_id)
              .filter((id) => id.startsWith('restart'));
            // The second batch fails once: it must come again, whole, before anything after it.
            if (failOnce && ids.includes('restart-4')) {
              failOnce = false;
              throw new Error('store away');
            }
            handled.push(...ids);
          },
        });
        const first = await runProcessor(log, definition, silent);
        await waitFor(async () => handled.length >= 6, waitMs, 'two batches handled');
        await first.stop();
        expect(first.stats.failed_attempts).toBe(1);
        const committed = (await partitionOf('runner-restart')).committedOffset;

        await publisher.publish('trades', trades('restart-late', 2));
        const second = await runProcessor(log, definition, silent);
        await waitFor(async () => handled.length >= 12, waitMs, 'the rest handled after the restart');
        await waitFor(
          async () => {
            const p = await partitionOf('runner-restart');
            return p.committedOffset === p.endOffset;
          },
          waitMs,
          'everything committed',
        );
        await second.stop();

        expect(committed).toBeGreaterThan(0);
        const expected = [...trades('restart', 10), ...trades('restart-late', 2)].map((t) => t.event_id);
        expect(handled).toEqual(expected);
      },
      4 * waitMs,
    );

    test(
      'stop waits for the batch in flight and commits it',
      async () => {
        await publisher.publish('trades', trades('inflight', 3));
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        let started = false;
        let finished = false;
        const processor = await runProcessor(
          log,
          defineProcessor({
            name: 'sandbox',
            group: 'runner-stop',
            streams: [STREAMS.trades],
            maxBatchSize: 1_000,
            fromBeginning: true,
            handle: async () => {
              started = true;
              await gate;
              finished = true;
            },
          }),
          silent,
        );
        await waitFor(async () => started, waitMs, 'the batch in flight');
        // While the batch waits, its records are lag.
        await waitFor(
          async () =>
            /tapeline_processor_lag_messages\{processor="sandbox",topic="tapeline\.trades\.v1",partition="\d+"\} [1-9]/.test(
              await processorMetricsText(),
            ),
          waitMs,
          'the lag reported',
        );
        let stopped = false;
        const stopping = processor.stop().then(() => {
          stopped = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(stopped).toBe(false);
        release();
        await stopping;
        expect(finished).toBe(true);
        const p = await partitionOf('runner-stop');
        expect(p.committedOffset).toBe(p.endOffset);
        // A stopped processor's lag is no longer reported.
        expect(await processorMetricsText()).not.toContain('processor="sandbox",topic=');
      },
      4 * waitMs,
    );

    test(
      'a handler that gives up on the stop signal leaves its batch uncommitted; the next start gets it again',
      async () => {
        await publisher.publish('trades', trades('given-up', 3));
        let started = false;
        const definition = (handle: Parameters<typeof defineProcessor>[0]['handle']) =>
          defineProcessor({
            name: 'sandbox',
            group: 'runner-give-up',
            streams: [STREAMS.trades],
            maxBatchSize: 1_000,
            fromBeginning: true,
            handle,
          });
        const first = await runProcessor(
          log,
          definition(async (_batch, { signal }) => {
            started = true;
            await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
            signal.throwIfAborted();
          }),
          silent,
        );
        await waitFor(async () => started, waitMs, 'the batch in flight');
        await first.stop();
        // Given up, not failed: nothing counted as a failed attempt, nothing committed.
        expect(first.stats.failed_attempts).toBe(0);
        expect(first.stats.batches).toBe(0);
        const before = await partitionOf('runner-give-up');
        expect(before.committedOffset).toBeLessThan(before.endOffset);

        const handled: string[] = [];
        const second = await runProcessor(
          log,
          definition(async (batch) => {
            handled.push(...eventsOf(batch, STREAMS.trades).map((t) => t.event_id));
          }),
          silent,
        );
        await waitFor(async () => handled.includes('given-up-2'), waitMs, 'the batch again');
        await second.stop();
        expect(handled.filter((id) => id.startsWith('given-up'))).toEqual(['given-up-0', 'given-up-1', 'given-up-2']);
        const after = await partitionOf('runner-give-up');
        expect(after.committedOffset).toBe(after.endOffset);
      },
      4 * waitMs,
    );
  });
}
