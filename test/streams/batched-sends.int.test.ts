/**
 * A subscription's run of records leaves in one write to the kernel, not one per message: with one
 * write per frame, 100 replays into sockets nobody read kept the API's event loop busy for 17 s, 35-40 %
 * of it in writev, and live subscribers' p99 rose 16-27x (docs/STREAMING.md, stalled readers).
 *
 * Here over the real file log: a subscription replaying 1,200 trades from the start sends every
 * message inside its sink's batch, a run of them per batch; and `corked` hands a Node stream one
 * writev of everything sent inside it, also when the sender corks each frame itself as `ws` does.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { EventPublisher } from '../../services/events/publisher.js';
import type { FileEventLog } from '../../services/eventlog/file-log.js';
import type { StreamServerMessage } from '../../services/http/types.generated.js';
import { CHANNELS } from '../../services/streams/channels.js';
import { LogEnds } from '../../services/streams/log-ends.js';
import { ReplayQueue } from '../../services/streams/replay-queue.js';
import { corked, logReader, type StreamSink, Subscription } from '../../services/streams/subscription.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { conditionId, T0, tradeExecuted } from '../support/events.js';
import { openStreamTestLog } from '../support/stream-log.js';
import { waitFor } from '../support/http.js';

const TRADES = 1_200;
const READ_BATCH = 500;

let log: FileEventLog;
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-batched-sends-'));

beforeAll(async () => {
  log = await openStreamTestLog(logDir);
  const publisher = new EventPublisher(log);
  const trades = Array.from({ length: TRADES }, (_, i) =>
    tradeExecuted({ event_id: `batched-${i}`, market_id: conditionId((i % 7) + 1), timestamp_ms: T0 + i }),
  );
  await publisher.publish('trades', trades);
});

afterAll(async () => {
  await log?.close();
  fs.rmSync(logDir, { recursive: true, force: true });
});

test('a replay sends its messages in batches, one per run read from the log', async () => {
  const channel = CHANNELS.trades!;
  const stream = channel.streams[0]!;
  const ends = new LogEnds(log, 20, (error) => {
    throw error;
  });
  const watch = await ends.watch(stream.topic);
  const partitions = watch.offsets.map((_, partition) => ({ stream, partition }));
  let inBatch = false;
  let sentInBatch = 0;
  let sentOutside = 0;
  let batchesWithSends = 0;
  const trades = new Set<string>();
  const sink: StreamSink = {
    send(message: StreamServerMessage) {
      if (message.type !== 'trade') return;
      trades.add(message.data.trade_id);
      if (inBatch) sentInBatch++;
      else sentOutside++;
    },
    bufferedBytes: () => 0,
    batch(sends) {
      inBatch = true;
      const before = sentInBatch;
      try {
        return sends();
      } finally {
        inBatch = false;
        if (sentInBatch > before) batchesWithSends++;
      }
    },
  };
  const subscription = new Subscription({
    id: 'batched',
    keyId: 'key',
    channel,
    filters: await channel.parseFilters({}, '', undefined as unknown as AnalyticsStore),
    positions: new Map([[stream.topic, watch.offsets.map(() => 0)]]),
    partitions,
    read: logReader(log),
    ends,
    replays: new ReplayQueue(4),
    settings: { heartbeatMs: 60_000, bufferBytes: 1_048_576, slowConsumerMs: 10_000, readBatch: READ_BATCH, pollMs: 20 },
    sink,
    counters: { messages: 0, undecodable: 0 },
    onEnd: (error) => {
      throw new Error(`ended: ${error.code}`);
    },
  });
  subscription.start();
  try {
    await waitFor(async () => trades.size === TRADES, 30_000, 'every trade sent');
  } finally {
    subscription.stop();
    await subscription.done;
    watch.release();
    ends.close();
  }
  expect({ sentInBatch, sentOutside }).toEqual({ sentInBatch: TRADES, sentOutside: 0 });
  // One batch per run: at most a run per partition, plus one more for each READ_BATCH a partition holds.
  const perPartition = await log.partitionOffsets(stream.topic);
  const runs = perPartition.reduce((sum, p) => sum + Math.ceil(p.endOffset / READ_BATCH), 0);
  expect(batchesWithSends).toBeLessThanOrEqual(runs);
  expect(batchesWithSends).toBeLessThan(TRADES / 10);
});

test('corked: everything written inside leaves in one writev, even when the writer corks each frame itself', async () => {
  const writes: number[] = [];
  const target = new Writable({
    write(_chunk, _encoding, done) {
      writes.push(1);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.length);
      done();
    },
  });
  // As ws sends a frame: header and payload corked together.
  const sendFrame = (payload: string) => {
    target.cork();
    target.write(Buffer.from([0x81, payload.length]));
    target.write(payload);
    target.uncork();
  };
  const result = corked(target, () => {
    for (let i = 0; i < 50; i++) sendFrame(`frame ${i}`);
    return 'sent';
  });
  expect(result).toBe('sent');
  await new Promise((resolve) => setImmediate(resolve));
  expect(writes).toEqual([100]);
  // A throwing run still uncorks: what it wrote before the throw is not held back.
  expect(() =>
    corked(target, () => {
      sendFrame('before');
      throw new Error('boom');
    }),
  ).toThrow('boom');
  await new Promise((resolve) => setImmediate(resolve));
  expect(target.writableCorked).toBe(0);
  expect(writes).toEqual([100, 2]);
});
