/**
 * The embedded event log under retention (issue 59 M3): 200 MB produced into a 4-partition topic
 * (4 KiB records, 4 MiB segments, EVENT_LOG_RETENTION_BYTES-like bound of 16 MiB per partition) while
 * one consumer group reads it, the log closed and reopened halfway (a restart). Records the largest
 * disk use seen (sampled every 100 ms), what retention deleted, and whether every record produced was
 * consumed exactly once. Writes bench/results/log-retention.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FileEventLog, openFileEventLog } from '../services/eventlog/file-log.js';
import type { RunningConsumer } from '../services/ports/event-log.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOPIC = 'retention-bench';
const PARTITIONS = 4;
const RECORD_BYTES = 4_096;
const TOTAL_BYTES = 200 * 1024 * 1024;
const SEGMENT_BYTES = 4 * 1024 * 1024;
const RETENTION_BYTES = 16 * 1024 * 1024;
const records = Math.floor(TOTAL_BYTES / RECORD_BYTES);

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-log-retention-'));
const open = () =>
  openFileEventLog({
    directory,
    fsync: false,
    pollIntervalMs: 20,
    segmentBytes: SEGMENT_BYTES,
    retention: { retentionMs: null, retentionBytes: RETENTION_BYTES },
    retentionCheckMs: 250,
  });

const consumed = new Map<string, number>();
let consumedCount = 0;
const consume = (log: FileEventLog): Promise<RunningConsumer> =>
  log.runConsumer({
    groupId: 'bench-reader',
    topics: [TOPIC],
    maxBatchSize: 500,
    handleBatch: async (batch) => {
      for (const m of batch.messages) {
        const id = m.value.subarray(0, 12).toString('utf8');
        consumed.set(id, (consumed.get(id) ?? 0) + 1);
        consumedCount++;
      }
    },
  });

const diskBytes = () => {
  let total = 0;
  const topicDir = path.join(directory, 'topics', TOPIC);
  for (const name of fs.readdirSync(topicDir)) if (name.endsWith('.log')) total += fs.statSync(path.join(topicDir, name)).size;
  return total;
};

const started = Date.now();
let log = await open();
await log.createTopics([{ name: TOPIC, partitions: PARTITIONS }]);
let consumer = await consume(log);
let maxDisk = 0;
const sampler = setInterval(() => {
  maxDisk = Math.max(maxDisk, diskBytes());
}, 100);
const padding = Buffer.alloc(RECORD_BYTES - 12, 0x61);
let deletedSegments = 0;
for (let i = 0; i < records; i += 100) {
  if (i === Math.floor(records / 2 / 100) * 100) {
    // A restart halfway: the consumer stops after its batch in flight, the log closes, both come back.
    await consumer.stop();
    deletedSegments += (await log.storage()).deletedSegments;
    await log.close();
    log = await open();
    consumer = await consume(log);
  }
  await log.produce(
    TOPIC,
    Array.from({ length: Math.min(100, records - i) }, (_, j) => ({
      key: `k${(i + j) % 64}`,
      value: Buffer.concat([Buffer.from(String(i + j).padStart(12, '0')), padding]),
    })),
  );
}
while (consumedCount < records && Date.now() - started < 300_000) await new Promise((resolve) => setTimeout(resolve, 50));
await log.enforceRetention();
clearInterval(sampler);
maxDisk = Math.max(maxDisk, diskBytes());
const storage = await log.storage();
deletedSegments += storage.deletedSegments;
await consumer.stop();
await log.close();
fs.rmSync(directory, { recursive: true, force: true });

const duplicates = [...consumed.values()].filter((n) => n > 1).length;
const result = {
  bench: 'log-retention',
  produced_records: records,
  produced_bytes: records * RECORD_BYTES,
  consumed_distinct: consumed.size,
  consumed_duplicates: duplicates,
  lost: records - consumed.size,
  partitions: PARTITIONS,
  segment_bytes: SEGMENT_BYTES,
  retention_bytes_per_partition: RETENTION_BYTES,
  max_disk_bytes: maxDisk,
  final_disk_bytes: storage.bytes,
  deleted_segments: deletedSegments,
  lost_records_by_group: storage.lostRecordsByGroup,
  restarts: 1,
  wall_ms: Date.now() - started,
  node: process.version,
  at: new Date().toISOString(),
};
fs.writeFileSync(path.join(here, 'results', 'log-retention.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
