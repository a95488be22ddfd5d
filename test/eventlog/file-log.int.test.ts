import { appendFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFileEventLog, type TruncatedTail } from '../../services/eventlog/file-log.js';
import { partitionForKey } from '../../services/eventlog/partitioner.js';
import { encodeFrames } from '../../services/eventlog/record-codec.js';
import type { EventLog, LogMessage, MessageBatch } from '../../services/ports/event-log.js';
import { describeEventLogContract } from '../contracts/event-log.contract.js';
import { readAll, runFixture, sleep, waitFor } from './helpers.js';

const POLL_INTERVAL_MS = 50;

describeEventLogContract('embedded file log', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'tapeline-eventlog-'));
  const opened: EventLog[] = [];
  const openLog = async () => {
    const log = await openFileEventLog({ directory, pollIntervalMs: POLL_INTERVAL_MS });
    opened.push(log);
    return log;
  };
  return {
    log: await openLog(),
    reopen: openLog,
    cleanup: async () => {
      await Promise.all(opened.map((log) => log.close()));
      await rm(directory, { recursive: true, force: true });
    },
  };
});

describe('embedded file log', () => {
  let directory: string;
  const opened: EventLog[] = [];
  const truncatedTails: TruncatedTail[] = [];

  async function openLog(): Promise<EventLog> {
    const log = await openFileEventLog({
      directory,
      pollIntervalMs: POLL_INTERVAL_MS,
      onTruncatedTail: (tail) => truncatedTails.push(tail),
    });
    opened.push(log);
    return log;
  }

  function partitionFile(topic: string, partition: number): string {
    return join(directory, 'topics', topic, `${partition}.log`);
  }

  const text = (m: LogMessage) => m.value.toString();

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'tapeline-eventlog-'));
    truncatedTails.length = 0;
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((log) => log.close()));
    await rm(directory, { recursive: true, force: true });
  });

  describe('torn tail repair', () => {
    const aValidFrame = encodeFrames([{ key: 'k', timestamp: 1, headers: {}, value: Buffer.from('never acknowledged') }]).bytes;
    const tails: Array<[string, Buffer]> = [
      ['a partial frame header', aValidFrame.subarray(0, 5)],
      ['a frame cut off mid-payload', aValidFrame.subarray(0, aValidFrame.length - 3)],
      ['a complete frame with a wrong checksum', Buffer.from(aValidFrame).fill(0x41, aValidFrame.length - 4)],
      ['a zero length prefix', Buffer.alloc(16)],
    ];

    test.each(tails)('%s is cut off on open; earlier records stay and new appends follow them', async (_, tail) => {
      let log = await openLog();
      await log.createTopics([{ name: 'trades', partitions: 1 }]);
      await log.produce(
        'trades',
        Array.from({ length: 10 }, (_, i) => ({ key: 'm', value: Buffer.from(`trade-${i}`) })),
      );
      await log.close();
      const intactBytes = (await stat(partitionFile('trades', 0))).size;
      await appendFile(partitionFile('trades', 0), tail);

      log = await openLog();
      expect(truncatedTails).toEqual([{ path: partitionFile('trades', 0), validBytes: intactBytes, discardedBytes: tail.length }]);
      expect((await stat(partitionFile('trades', 0))).size).toBe(intactBytes);
      expect((await readAll(log, 'trades')).map(text)).toEqual(Array.from({ length: 10 }, (_, i) => `trade-${i}`));

      await log.produce('trades', [{ key: 'm', value: Buffer.from('after repair') }]);
      await log.close();
      log = await openLog();
      expect(truncatedTails).toHaveLength(1);
      const messages = await readAll(log, 'trades');
      expect(messages.map((m) => m.offset)).toEqual(Array.from({ length: 11 }, (_, i) => i));
      expect(text(messages[10]!)).toBe('after repair');
    });
  });

  describe('crash safety (child processes killed with SIGKILL)', () => {
    test('every acknowledged message survives kill -9 of the producer, exactly once and in order', async () => {
      let log = await openLog();
      await log.createTopics([{ name: 'crash', partitions: 3 }]);
      await log.close();

      const producer = runFixture('producer-child.ts', [directory, 'crash']);
      const ackedUpTo = () => Math.max(-1, ...producer.lines.map((line) => Number(line.split(' ')[2])));
      await producer.waitForLine('3000 acknowledged messages', () => ackedUpTo() >= 3000);
      // Let it run into a few more writes so the kill lands at an arbitrary point of one.
      await sleep(Math.random() * 30);
      await producer.killHard();
      const acknowledged = ackedUpTo();

      log = await openLog();
      const messages = await readAll(log, 'crash');
      const decoded = messages.map((m) => ({ ...(JSON.parse(text(m)) as { seq: number; batchFirst: number }), m }));
      const seqs = decoded.map((d) => d.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      const present = new Set(seqs);
      for (let seq = 0; seq <= acknowledged; seq++) if (!present.has(seq)) throw new Error(`acknowledged message ${seq} was lost`);
      // An unacknowledged call may have reached some partitions, but only if every call before it is complete.
      for (const { batchFirst } of decoded) {
        for (let seq = 0; seq < batchFirst; seq++)
          if (!present.has(seq)) throw new Error(`message ${seq} missing before call at ${batchFirst}`);
      }
      for (let partition = 0; partition < 3; partition++) {
        const inPartition = decoded.filter((d) => d.m.partition === partition).map((d) => d.seq);
        expect(inPartition).toEqual([...inPartition].sort((a, b) => a - b));
      }
      for (const key of new Set(messages.map((m) => m.key))) {
        expect(new Set(messages.filter((m) => m.key === key).map((m) => m.partition)).size).toBe(1);
      }

      await log.produce('crash', [{ key: 'key-0', value: Buffer.from('{"seq":-1}') }]);
      expect((await readAll(log, 'crash')).length).toBe(messages.length + 1);
    });

    async function producedTopic(count: number): Promise<EventLog> {
      const log = await openLog();
      await log.createTopics([{ name: 'work', partitions: 1 }]);
      await log.produce(
        'work',
        Array.from({ length: count }, (_, i) => ({ key: 'k', value: Buffer.from(String(i)) })),
      );
      await log.close();
      return log;
    }

    const handledRanges = (lines: string[]) =>
      lines.filter((line) => line.startsWith('handled ')).map((line) => line.split(' ').slice(1).map(Number) as [number, number]);

    test('a consumer killed after handling a batch but before committing it gets the batch redelivered', async () => {
      await producedTopic(100);
      const consumer = runFixture('consumer-child.ts', [directory, 'work', 'sink', '55']);
      await consumer.waitForLine('the batch holding offset 55', (lines) => lines.includes('handled 50 59'));
      await consumer.killHard();

      const log = await openLog();
      expect(await log.positions('sink', 'work')).toEqual([{ topic: 'work', partition: 0, endOffset: 100, committedOffset: 50 }]);
      const redelivered: MessageBatch[] = [];
      const running = await log.runConsumer({
        groupId: 'sink',
        topics: ['work'],
        maxBatchSize: 10,
        handleBatch: async (batch) => {
          redelivered.push(batch);
        },
      });
      await waitFor('the rest of the topic', () => redelivered.at(-1)?.lastOffset === 99);
      await running.stop();
      expect(redelivered[0]!.firstOffset).toBe(50);
      expect(redelivered.flatMap((b) => b.messages.map((m) => Number(text(m))))).toEqual(Array.from({ length: 50 }, (_, i) => 50 + i));
    });

    test('a consumer killed at an arbitrary moment loses nothing and never commits past what it handled', async () => {
      await producedTopic(3000);
      const consumer = runFixture('consumer-child.ts', [directory, 'work', 'sink']);
      await consumer.waitForLine('a few handled batches', (lines) => handledRanges(lines).length >= 15);
      await sleep(Math.random() * 20);
      await consumer.killHard();
      const handledByChild = handledRanges(consumer.lines);
      const lastHandled = Math.max(...handledByChild.map(([, last]) => last));

      const log = await openLog();
      const [position] = await log.positions('sink', 'work');
      expect(position!.committedOffset).toBeLessThanOrEqual(lastHandled + 1);
      const handledAfterRestart: MessageBatch[] = [];
      const running = await log.runConsumer({
        groupId: 'sink',
        topics: ['work'],
        handleBatch: async (batch) => {
          handledAfterRestart.push(batch);
        },
      });
      await waitFor('the rest of the topic', () => handledAfterRestart.at(-1)?.lastOffset === 2999);
      await running.stop();

      expect(handledAfterRestart[0]!.firstOffset).toBe(position!.committedOffset);
      const covered = new Set<number>();
      for (const [first, last] of [...handledByChild, ...handledAfterRestart.map((b) => [b.firstOffset, b.lastOffset])]) {
        for (let offset = first!; offset <= last!; offset++) covered.add(offset);
      }
      expect(covered.size).toBe(3000);
    });
  });

  describe('sharing a directory with another process', () => {
    test('a consumer here sees what a producer in another process appends, while it appends', async () => {
      const log = await openLog();
      await log.createTopics([{ name: 'shared', partitions: 2 }]);
      const received: LogMessage[] = [];
      const running = await log.runConsumer({
        groupId: 'tail',
        topics: ['shared'],
        handleBatch: async (batch) => {
          received.push(...batch.messages);
        },
      });
      const producer = runFixture('producer-child.ts', [directory, 'shared', '2000']);
      await waitFor('the first message from the other process', () => received.length > 0);
      expect((await producer.exited).code).toBe(0);
      await waitFor('all 2000 messages', () => received.length >= 2000);
      await running.stop();

      const seqs = received.map((m) => (JSON.parse(text(m)) as { seq: number }).seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
      expect((await log.positions('tail', 'shared')).reduce((sum, p) => sum + p.committedOffset, 0)).toBe(2000);
    });

    test('topics and records created through another log instance on the directory are picked up', async () => {
      const here = await openLog();
      const there = await openLog();
      await there.createTopics([{ name: 'elsewhere', partitions: 1 }]);
      await there.produce('elsewhere', [{ key: 'k', value: Buffer.from('from there') }]);
      await here.produce('elsewhere', [{ key: 'k', value: Buffer.from('from here') }]);
      await there.produce('elsewhere', [{ key: 'k', value: Buffer.from('there again') }]);
      expect((await readAll(here, 'elsewhere')).map(text)).toEqual(['from there', 'from here', 'there again']);
      expect((await readAll(there, 'elsewhere')).map(text)).toEqual(['from there', 'from here', 'there again']);
    });
  });

  describe('consumers', () => {
    test('a second member of a running group in the same process is rejected until the first stops', async () => {
      const log = await openLog();
      await log.createTopics([{ name: 't', partitions: 1 }]);
      const options = { groupId: 'solo', topics: ['t'], handleBatch: async () => undefined };
      const first = await log.runConsumer(options);
      await expect(log.runConsumer(options)).rejects.toThrow(/already has a member/);
      await first.stop();
      const second = await log.runConsumer(options);
      await second.stop();
    });

    test('fromBeginning: false starts a new group at the end of the log', async () => {
      const log = await openLog();
      await log.createTopics([{ name: 't', partitions: 1 }]);
      await log.produce('t', [{ key: 'k', value: Buffer.from('old') }]);
      const received: string[] = [];
      const running = await log.runConsumer({
        groupId: 'latest',
        topics: ['t'],
        fromBeginning: false,
        handleBatch: async (batch) => {
          received.push(...batch.messages.map(text));
        },
      });
      await log.produce('t', [{ key: 'k', value: Buffer.from('new') }]);
      await waitFor('the new message', () => received.length > 0);
      await running.stop();
      expect(received).toEqual(['new']);
    });

    test('partitions with backlog are served round-robin, one batch each in turn', async () => {
      const log = await openLog();
      await log.createTopics([{ name: 't', partitions: 2 }]);
      const keyFor = (partition: number) => {
        for (let i = 0; ; i++) if (partitionForKey(`key-${i}`, 2) === partition) return `key-${i}`;
      };
      await log.produce(
        't',
        Array.from({ length: 50 }, (_, i) => ({ key: keyFor(0), value: Buffer.from(String(i)) })),
      );
      await log.produce(
        't',
        Array.from({ length: 50 }, (_, i) => ({ key: keyFor(1), value: Buffer.from(String(i)) })),
      );
      const order: number[] = [];
      const running = await log.runConsumer({
        groupId: 'fair',
        topics: ['t'],
        maxBatchSize: 10,
        handleBatch: async (batch) => {
          order.push(batch.partition);
        },
      });
      await waitFor('10 batches', () => order.length >= 10);
      await running.stop();
      expect(order).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
    });

    test('retries of a failing batch back off exponentially', async () => {
      const log = await openLog();
      await log.createTopics([{ name: 't', partitions: 1 }]);
      await log.produce('t', [{ key: 'k', value: Buffer.from('x') }]);
      const attemptsAt: number[] = [];
      const running = await log.runConsumer({
        groupId: 'backoff',
        topics: ['t'],
        handleBatch: async () => {
          attemptsAt.push(performance.now());
          if (attemptsAt.length < 5) throw new Error('not yet');
        },
      });
      await waitFor('the fifth attempt', () => attemptsAt.length >= 5);
      await running.stop();
      const gaps = attemptsAt.slice(1).map((at, i) => at - attemptsAt[i]!);
      // 50, 100, 200, 400 ms nominal; timers fire late, never early (allow 5 ms of clock rounding).
      for (const [i, expected] of [50, 100, 200, 400].entries()) expect(gaps[i]).toBeGreaterThanOrEqual(expected - 5);
      expect(gaps[3]).toBeGreaterThan(gaps[0]! * 4);
    });

    test('close stops running consumers; later calls reject; closing twice is harmless', async () => {
      const log = await openLog();
      await log.createTopics([{ name: 't', partitions: 1 }]);
      let calls = 0;
      await log.runConsumer({ groupId: 'g', topics: ['t'], handleBatch: async () => void calls++ });
      await log.produce('t', [{ key: 'k', value: Buffer.from('1') }]);
      await waitFor('the first delivery', () => calls === 1);
      await log.close();
      await log.close();
      await expect(log.produce('t', [{ key: 'k', value: Buffer.from('2') }])).rejects.toThrow(/closed/);
      await expect(log.runConsumer({ groupId: 'g2', topics: ['t'], handleBatch: async () => undefined })).rejects.toThrow(/closed/);
      await sleep(POLL_INTERVAL_MS * 3);
      expect(calls).toBe(1);
    });

    test('subscribing to a topic that does not exist rejects', async () => {
      const log = await openLog();
      await expect(log.runConsumer({ groupId: 'g', topics: ['nope'], handleBatch: async () => undefined })).rejects.toThrow(
        /does not exist/,
      );
    });
  });

  describe('producing', () => {
    test('an invalid message fails the whole call before anything is written', async () => {
      const log = await openLog();
      await log.createTopics([{ name: 't', partitions: 2 }]);
      const valid = { key: 'a', value: Buffer.from('ok') };
      await expect(log.produce('t', [valid, { key: 'b'.repeat(70_000), value: Buffer.from('too long a key') }])).rejects.toThrow(/key/);
      await expect(log.produce('t', [valid, { key: 'c', value: Buffer.from('x'), timestamp: Number.NaN }])).rejects.toThrow(/timestamp/);
      expect((await log.positions('g', 't')).map((p) => p.endOffset)).toEqual([0, 0]);
    });

    test('messages without a timestamp get the time of the configured clock', async () => {
      const log = await openFileEventLog({ directory, clock: () => 1_234_567 });
      opened.push(log);
      await log.createTopics([{ name: 't', partitions: 1 }]);
      await log.produce('t', [
        { key: 'k', value: Buffer.from('a') },
        { key: 'k', value: Buffer.from('b'), timestamp: 7 },
      ]);
      expect((await readAll(log, 't')).map((m) => m.timestamp)).toEqual([1_234_567, 7]);
    });

    test('concurrent produce calls are all acknowledged and stored exactly once', async () => {
      const log = await openLog();
      await log.createTopics([{ name: 't', partitions: 2 }]);
      await Promise.all(Array.from({ length: 500 }, (_, i) => log.produce('t', [{ key: `k${i % 10}`, value: Buffer.from(String(i)) }])));
      const values = (await readAll(log, 't')).map((m) => Number(text(m)));
      expect(values.sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    });

    test('200k small messages across 4 partitions are all consumed, none twice', async () => {
      const log = await openLog();
      await log.createTopics([{ name: 'bulk', partitions: 4 }]);
      const total = 200_000;
      const value = Buffer.from('{"market":"0xabc","price":0.51,"size":100,"side":"BUY"}');
      for (let first = 0; first < total; first += 1000) {
        await log.produce(
          'bulk',
          Array.from({ length: 1000 }, (_, i) => ({ key: `market-${(first + i) % 500}`, value, headers: { type: 'trade' } })),
        );
      }
      let consumed = 0;
      const running = await log.runConsumer({
        groupId: 'bulk',
        topics: ['bulk'],
        handleBatch: async (batch) => {
          consumed += batch.messages.length;
        },
      });
      await waitFor('all 200k', () => consumed >= total);
      await running.stop();
      expect(consumed).toBe(total);
      const positions = await log.positions('bulk', 'bulk');
      expect(positions.reduce((sum, p) => sum + p.committedOffset, 0)).toBe(total);
    });
  });
});

test('onAppended tells this process about each topic appended to, once the records are readable, until stopped', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'tapeline-eventlog-appended-'));
  const log = await openFileEventLog({ directory, fsync: false });
  try {
    await log.createTopics([
      { name: 'a', partitions: 2 },
      { name: 'b', partitions: 1 },
    ]);
    const seen: Array<[string, number]> = [];
    const stop = log.onAppended((topic) => {
      // Readable by the time the listener hears of it.
      void log.partitionOffsets(topic).then((offsets) => seen.push([topic, offsets.reduce((sum, p) => sum + p.endOffset, 0)]));
    });
    await log.produce('a', [{ key: 'k1', value: Buffer.from('1') }]);
    await log.produce('b', [{ key: 'k1', value: Buffer.from('2') }]);
    await waitFor('both appends told', () => seen.length === 2);
    expect([...seen].sort()).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    stop();
    await log.produce('a', [{ key: 'k1', value: Buffer.from('3') }]);
    await sleep(50);
    expect(seen).toHaveLength(2);
  } finally {
    await log.close();
    await rm(directory, { recursive: true, force: true });
  }
});
