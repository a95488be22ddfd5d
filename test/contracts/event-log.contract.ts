/**
 * What every event-log adapter must do. Runs against the embedded file log now and Kafka with
 * "Real engines". `open` returns a log on fresh or shared storage; `reopen` opens the same storage
 * again (a restart), after the test closed the previous log; `cleanup` closes whatever is still open.
 *
 * Every test uses its own topic and group names, so the suite also runs on a shared broker, and
 * waits by polling with a generous deadline rather than sleeping, since a broker needs time to
 * join groups and fetch.
 */
import { randomUUID } from 'node:crypto';
import type { EventLog, LogMessage, MessageBatch, OutgoingMessage, RunningConsumer } from '../../services/ports/event-log.js';

export interface EventLogFixture {
  log: EventLog;
  reopen: () => Promise<EventLog>;
  cleanup: () => Promise<void>;
}

const WAIT_TIMEOUT_MS = 30_000;

function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(description: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_TIMEOUT_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await sleep(20);
  }
}

function message(key: string, text: string, extra: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return { key, value: Buffer.from(text), ...extra };
}

/** Messages of a batch must be consecutive offsets of the batch's topic-partition. */
function expectWellFormed(batch: MessageBatch): void {
  expect(batch.messages.length).toBeGreaterThan(0);
  expect(batch.firstOffset).toBe(batch.messages[0]!.offset);
  expect(batch.lastOffset).toBe(batch.messages.at(-1)!.offset);
  batch.messages.forEach((m, index) => {
    expect(m.topic).toBe(batch.topic);
    expect(m.partition).toBe(batch.partition);
    expect(m.offset).toBe(batch.firstOffset + index);
  });
}

export function describeEventLogContract(adapterName: string, open: () => Promise<EventLogFixture>): void {
  describe(`event log contract: ${adapterName}`, () => {
    let fixture: EventLogFixture;
    let log: EventLog;
    let consumers: RunningConsumer[];

    beforeEach(async () => {
      fixture = await open();
      log = fixture.log;
      consumers = [];
    });
    afterEach(async () => {
      await Promise.allSettled(consumers.map((consumer) => consumer.stop()));
      await fixture.cleanup();
    });

    /** Runs a consumer that records every batch it successfully handled. */
    async function collect(groupId: string, topics: string[], maxBatchSize?: number) {
      const batches: MessageBatch[] = [];
      const messages: LogMessage[] = [];
      const consumer = await log.runConsumer({
        groupId,
        topics,
        maxBatchSize,
        handleBatch: async (batch) => {
          batches.push(batch);
          messages.push(...batch.messages);
        },
      });
      consumers.push(consumer);
      return { consumer, batches, messages };
    }

    async function committedTotal(groupId: string, topic: string): Promise<number> {
      return (await log.positions(groupId, topic)).reduce((sum, p) => sum + p.committedOffset, 0);
    }

    test('delivers key, value, headers and timestamp as produced, at consecutive offsets from 0', async () => {
      const topic = uniqueName('roundtrip');
      await log.createTopics([{ name: topic, partitions: 3 }]);
      const produced: OutgoingMessage[] = Array.from({ length: 30 }, (_, i) =>
        message(`market-${i % 7}`, '', {
          // Binary value: a NUL, a 0xff and non-ASCII text must survive untouched.
          value: Buffer.concat([Buffer.from([0, 255, i]), Buffer.from(`payload-${i}-ü`)]),
          ...(i % 2 === 0 ? { headers: { seq: String(i), 'content-type': 'application/json', note: 'ünï ✓' } } : {}),
          ...(i % 3 === 0 ? { timestamp: 1_700_000_000_000 + i } : {}),
        }),
      );
      const before = Date.now();
      await log.produce(topic, produced.slice(0, 10));
      await log.produce(topic, produced.slice(10));
      const after = Date.now();

      const { batches, messages } = await collect(uniqueName('g'), [topic]);
      await waitFor('30 messages', () => messages.length >= 30);

      expect(messages).toHaveLength(30);
      batches.forEach(expectWellFormed);
      for (const received of messages) {
        const i = received.value[2]!;
        const sent = produced[i]!;
        expect(received.topic).toBe(topic);
        expect(received.key).toBe(sent.key);
        expect(Buffer.compare(received.value, sent.value)).toBe(0);
        expect(received.headers).toEqual(sent.headers ?? {});
        if (sent.timestamp !== undefined) expect(received.timestamp).toBe(sent.timestamp);
        else {
          expect(received.timestamp).toBeGreaterThanOrEqual(before - 1000);
          expect(received.timestamp).toBeLessThanOrEqual(after + 1000);
        }
      }
      const offsetsByPartition = new Map<number, number[]>();
      for (const m of messages) offsetsByPartition.set(m.partition, [...(offsetsByPartition.get(m.partition) ?? []), m.offset]);
      for (const [partition, offsets] of offsetsByPartition) {
        expect(partition).toBeGreaterThanOrEqual(0);
        expect(partition).toBeLessThan(3);
        expect(offsets).toEqual(offsets.map((_, index) => index));
      }
    });

    test('messages with the same key land in one partition, in produce order', async () => {
      const topic = uniqueName('ordering');
      await log.createTopics([{ name: topic, partitions: 4 }]);
      const keys = ['m-alpha', 'm-beta', 'm-gamma', 'm-delta', 'm-epsilon', 'm-zeta'];
      let seq = 0;
      for (let call = 0; call < 10; call++) {
        const batch = Array.from({ length: 20 }, () => {
          const key = keys[seq % keys.length]!;
          return message(key, String(seq++));
        });
        await log.produce(topic, batch);
      }
      const { messages } = await collect(uniqueName('g'), [topic], 7);
      await waitFor('200 messages', () => messages.length >= 200);

      const partitionsUsed = new Set<number>();
      for (const key of keys) {
        const ofKey = messages.filter((m) => m.key === key);
        expect(new Set(ofKey.map((m) => m.partition)).size).toBe(1);
        partitionsUsed.add(ofKey[0]!.partition);
        const seqs = ofKey.map((m) => Number(m.value.toString()));
        const expected = Array.from({ length: 200 }, (_, s) => s).filter((s) => keys[s % keys.length] === key);
        expect(seqs).toEqual(expected);
      }
      // Six keys over four partitions: a partitioner that ignores the key would put them all in one.
      expect(partitionsUsed.size).toBeGreaterThan(1);
    });

    test('consumer groups are independent: each gets every message, a failing group blocks no other', async () => {
      const topic = uniqueName('groups');
      await log.createTopics([{ name: topic, partitions: 2 }]);
      await log.produce(
        topic,
        Array.from({ length: 20 }, (_, i) => message(`k${i}`, String(i))),
      );

      const failingGroup = uniqueName('failing');
      const failing = await log.runConsumer({
        groupId: failingGroup,
        topics: [topic],
        handleBatch: async () => {
          throw new Error('this group never succeeds');
        },
      });
      consumers.push(failing);
      const first = await collect(uniqueName('first'), [topic]);
      const second = await collect(uniqueName('second'), [topic]);
      await waitFor('both groups to get 20 messages', () => first.messages.length >= 20 && second.messages.length >= 20);

      const values = (messages: LogMessage[]) => messages.map((m) => Number(m.value.toString())).sort((a, b) => a - b);
      expect(values(first.messages)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(values(second.messages)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      await first.consumer.stop();
      await second.consumer.stop();
      await failing.stop();
      expect(await committedTotal(failingGroup, topic)).toBe(0);
    });

    test('committed offsets survive a reopen: the group resumes after its last batch, a new group starts at 0', async () => {
      const topic = uniqueName('resume');
      const group = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 2 }]);
      await log.produce(
        topic,
        Array.from({ length: 10 }, (_, i) => message(`k${i}`, String(i))),
      );
      const before = await collect(group, [topic]);
      await waitFor('the first 10 to be committed', async () => (await committedTotal(group, topic)) === 10);
      await before.consumer.stop();
      expect(before.messages).toHaveLength(10);
      await log.close();

      log = await fixture.reopen();
      const positions = await log.positions(group, topic);
      expect(positions.map((p) => p.committedOffset)).toEqual(positions.map((p) => p.endOffset));
      await log.produce(
        topic,
        Array.from({ length: 5 }, (_, i) => message(`k${i}`, String(10 + i))),
      );

      const resumed = await collect(group, [topic]);
      const fresh = await collect(uniqueName('fresh'), [topic]);
      await waitFor('the resumed group to get the 5 new messages', () => resumed.messages.length >= 5);
      await waitFor('the new group to get all 15', () => fresh.messages.length >= 15);
      await waitFor('the resumed group to commit', async () => (await committedTotal(group, topic)) === 15);

      expect(resumed.messages.map((m) => Number(m.value.toString())).sort((a, b) => a - b)).toEqual([10, 11, 12, 13, 14]);
      expect(fresh.messages.map((m) => Number(m.value.toString())).sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    });

    test('a rejected batch is delivered again, unchanged, and nothing after it is committed meanwhile', async () => {
      const topic = uniqueName('retry');
      const group = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 1 }]);
      await log.produce(
        topic,
        Array.from({ length: 5 }, (_, i) => message('same-key', String(i))),
      );

      const attempts: MessageBatch[] = [];
      const errors: Array<{ error: unknown; batch: MessageBatch }> = [];
      const committedDuringFailures: number[] = [];
      const consumer = await log.runConsumer({
        groupId: group,
        topics: [topic],
        maxBatchSize: 3,
        handleBatch: async (batch) => {
          attempts.push(batch);
          if (attempts.length <= 2) {
            committedDuringFailures.push(await committedTotal(group, topic));
            throw new Error(`transient failure ${attempts.length}`);
          }
        },
        onError: (error, batch) => errors.push({ error, batch }),
      });
      consumers.push(consumer);
      await waitFor('everything to be committed after the retries', async () => (await committedTotal(group, topic)) === 5);
      await consumer.stop();

      const offsetsOf = (batch: MessageBatch) => batch.messages.map((m) => m.offset);
      const failedOffsets = offsetsOf(attempts[0]!);
      expect(failedOffsets[0]).toBe(0);
      expect(failedOffsets.length).toBeLessThanOrEqual(3);
      // The two retries carry exactly the failed batch; only then does the consumer move on.
      expect(offsetsOf(attempts[1]!)).toEqual(failedOffsets);
      expect(offsetsOf(attempts[2]!)).toEqual(failedOffsets);
      expect(attempts[2]!.messages.map((m) => m.value.toString())).toEqual(attempts[0]!.messages.map((m) => m.value.toString()));
      expect(committedDuringFailures).toEqual([0, 0]);
      expect(errors.map(({ error }) => (error as Error).message)).toEqual(['transient failure 1', 'transient failure 2']);
      expect(errors.every(({ batch }) => batch.firstOffset === 0)).toBe(true);
      const delivered = attempts.slice(2).flatMap(offsetsOf);
      expect(delivered).toEqual([0, 1, 2, 3, 4]);
    });

    test('a consumer stopped while its batch keeps failing commits nothing; the next one gets the batch', async () => {
      const topic = uniqueName('retry-stop');
      const group = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 1 }]);
      await log.produce(
        topic,
        Array.from({ length: 4 }, (_, i) => message('k', String(i))),
      );
      let failures = 0;
      const failing = await log.runConsumer({
        groupId: group,
        topics: [topic],
        handleBatch: async () => {
          failures++;
          throw new Error('down');
        },
      });
      consumers.push(failing);
      await waitFor('two failed attempts', () => failures >= 2);
      await failing.stop();
      expect(await committedTotal(group, topic)).toBe(0);

      const next = await collect(group, [topic]);
      await waitFor('redelivery of all 4', () => next.messages.length >= 4);
      expect(next.messages.map((m) => m.offset)).toEqual([0, 1, 2, 3]);
    });

    test('stop waits for the batch in flight, commits it, and no handler runs after stop resolves', async () => {
      const topic = uniqueName('stop');
      const group = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 1 }]);
      let calls = 0;
      let inFlight = false;
      let finishedBeforeStopResolved = false;
      const consumer = await log.runConsumer({
        groupId: group,
        topics: [topic],
        handleBatch: async () => {
          calls++;
          inFlight = true;
          await sleep(300);
          inFlight = false;
        },
      });
      consumers.push(consumer);
      await log.produce(topic, [message('k', 'first')]);
      await waitFor('the handler to start', () => inFlight);
      await consumer.stop().then(() => {
        finishedBeforeStopResolved = !inFlight;
      });
      expect(finishedBeforeStopResolved).toBe(true);
      expect(await committedTotal(group, topic)).toBe(1);

      const callsAtStop = calls;
      await log.produce(topic, [message('k', 'after stop')]);
      await sleep(500);
      expect(calls).toBe(callsAtStop);
    });

    test('createTopics is idempotent and leaves existing topics and their messages alone', async () => {
      const topic = uniqueName('idempotent');
      const other = uniqueName('other');
      await log.createTopics([{ name: topic, partitions: 3 }]);
      await log.produce(topic, [message('a', '1'), message('b', '2'), message('c', '3')]);
      await log.createTopics([{ name: topic, partitions: 3 }]);
      await log.createTopics([
        { name: topic, partitions: 3 },
        { name: other, partitions: 2 },
      ]);
      await Promise.all([log.createTopics([{ name: other, partitions: 2 }]), log.createTopics([{ name: other, partitions: 2 }])]);

      const positions = await log.positions(uniqueName('g'), topic);
      expect(positions.map((p) => p.partition).sort()).toEqual([0, 1, 2]);
      expect(positions.reduce((sum, p) => sum + p.endOffset, 0)).toBe(3);
      expect(await log.positions(uniqueName('g'), other)).toHaveLength(2);
    });

    test('producing to a topic that was never created rejects and creates nothing', async () => {
      const topic = uniqueName('missing');
      await expect(log.produce(topic, [message('k', 'lost')])).rejects.toThrow();
      await log.createTopics([{ name: topic, partitions: 1 }]);
      const [position] = await log.positions(uniqueName('g'), topic);
      expect(position).toMatchObject({ partition: 0, endOffset: 0, committedOffset: 0 });
    });

    test('positions report end offsets, committed offsets and therefore lag per partition', async () => {
      const topic = uniqueName('lag');
      const group = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 1 }]);
      await log.produce(
        topic,
        Array.from({ length: 5 }, (_, i) => message('k', String(i))),
      );

      const untouched = await log.positions(group, topic);
      expect(untouched).toEqual([{ topic, partition: 0, endOffset: 5, committedOffset: 0 }]);

      // Handles only the first batch (at most 2 messages), then stalls on the second.
      const handled: MessageBatch[] = [];
      const batchSizes: number[] = [];
      const consumer = await log.runConsumer({
        groupId: group,
        topics: [topic],
        maxBatchSize: 2,
        handleBatch: async (batch) => {
          batchSizes.push(batch.messages.length);
          if (handled.length > 0) throw new Error('stalled');
          handled.push(batch);
        },
      });
      consumers.push(consumer);
      await waitFor('the first batch to be committed', async () => (await committedTotal(group, topic)) > 0);
      await consumer.stop();
      expect(Math.max(...batchSizes)).toBeLessThanOrEqual(2);
      const firstBatchEnd = handled[0]!.lastOffset + 1;
      const [partial] = await log.positions(group, topic);
      expect(partial).toEqual({ topic, partition: 0, endOffset: 5, committedOffset: firstBatchEnd });

      await log.produce(topic, [message('k', '5'), message('k', '6')]);
      const [grown] = await log.positions(group, topic);
      expect(grown!.endOffset - grown!.committedOffset).toBe(7 - firstBatchEnd);
    });

    test('positions cover every partition, and a fully consumed group has no lag', async () => {
      const topic = uniqueName('lag-multi');
      const group = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 3 }]);
      await log.produce(
        topic,
        Array.from({ length: 12 }, (_, i) => message(`key-${i}`, String(i))),
      );
      const { messages } = await collect(group, [topic]);
      await waitFor('everything to be committed', async () => (await committedTotal(group, topic)) === 12);

      const positions = (await log.positions(group, topic)).sort((a, b) => a.partition - b.partition);
      expect(positions.map((p) => p.partition)).toEqual([0, 1, 2]);
      for (const position of positions) {
        const delivered = messages.filter((m) => m.partition === position.partition).length;
        expect(position).toEqual({ topic, partition: position.partition, endOffset: delivered, committedOffset: delivered });
      }
    });

    /** Reads a partition from `from` to its end with group-less reads of at most `max` messages. */
    async function readToEnd(topic: string, partition: number, from: number, max: number): Promise<LogMessage[]> {
      const end = (await log.partitionOffsets(topic))[partition]!.endOffset;
      const read: LogMessage[] = [];
      for (let next = from; next < end; ) {
        const run = await log.read(topic, partition, next, max);
        expect(run.length).toBeGreaterThan(0);
        expect(run.length).toBeLessThanOrEqual(max);
        read.push(...run);
        next = run.at(-1)!.offset + 1;
      }
      return read;
    }

    test('partitionOffsets gives every partition its start and end; read returns a partition from any offset, in produce order', async () => {
      const topic = uniqueName('read');
      await log.createTopics([{ name: topic, partitions: 3 }]);
      expect(await log.partitionOffsets(topic)).toEqual([0, 1, 2].map((partition) => ({ partition, startOffset: 0, endOffset: 0 })));
      const keys = ['m-a', 'm-b', 'm-c', 'm-d'];
      const produced = Array.from({ length: 40 }, (_, i) => message(keys[i % keys.length]!, `v${i}`, { headers: { seq: String(i) } }));
      await log.produce(topic, produced.slice(0, 25));
      await log.produce(topic, produced.slice(25));

      const offsets = await log.partitionOffsets(topic);
      expect(offsets.map((p) => p.partition)).toEqual([0, 1, 2]);
      expect(offsets.every((p) => p.startOffset === 0)).toBe(true);
      expect(offsets.reduce((sum, p) => sum + p.endOffset, 0)).toBe(40);
      const all: LogMessage[] = [];
      for (const { partition, endOffset } of offsets) {
        const read = await readToEnd(topic, partition, 0, 7);
        expect(read.map((m) => m.offset)).toEqual(Array.from({ length: endOffset }, (_, i) => i));
        expect(read.every((m) => m.topic === topic && m.partition === partition)).toBe(true);
        // One key, one partition; within it, the order of production.
        for (const key of keys) {
          const seqs = read.filter((m) => m.key === key).map((m) => Number(m.headers.seq));
          expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        }
        all.push(...read);
      }
      expect(all.map((m) => m.value.toString()).sort()).toEqual(produced.map((m) => m.value.toString()).sort());

      // From the middle of a partition, and at its end (nothing yet), and again once more arrives.
      const busiest = [...offsets].sort((a, b) => b.endOffset - a.endOffset)[0]!;
      const middle = Math.floor(busiest.endOffset / 2);
      const tail = await readToEnd(topic, busiest.partition, middle, 100);
      expect(tail.map((m) => m.offset)).toEqual(Array.from({ length: busiest.endOffset - middle }, (_, i) => middle + i));
      expect(await log.read(topic, busiest.partition, busiest.endOffset, 10)).toEqual([]);
      const key = all.find((m) => m.partition === busiest.partition)!.key;
      await log.produce(topic, [message(key, 'later')]);
      await waitFor('the new end', async () => (await log.partitionOffsets(topic))[busiest.partition]!.endOffset === busiest.endOffset + 1);
      const later = await log.read(topic, busiest.partition, busiest.endOffset, 10);
      expect(later.map((m) => [m.offset, m.key, m.value.toString()])).toEqual([[busiest.endOffset, key, 'later']]);
    });

    test('reads take no consumer group position, and readers at different offsets do not disturb each other', async () => {
      const topic = uniqueName('read-free');
      const group = uniqueName('g');
      await log.createTopics([{ name: topic, partitions: 1 }]);
      await log.produce(
        topic,
        Array.from({ length: 30 }, (_, i) => message('k', String(i))),
      );
      const [a, b] = await Promise.all([readToEnd(topic, 0, 0, 4), readToEnd(topic, 0, 17, 5)]);
      expect(a.map((m) => m.value.toString())).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));
      expect(b.map((m) => m.value.toString())).toEqual(Array.from({ length: 13 }, (_, i) => String(17 + i)));
      // A group that never consumed still starts at the beginning: reading committed nothing.
      expect(await log.positions(group, topic)).toEqual([{ topic, partition: 0, endOffset: 30, committedOffset: 0 }]);
    });
  });
}
