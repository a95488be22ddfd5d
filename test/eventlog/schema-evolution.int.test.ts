/**
 * Schema evolution on the embedded file log, as on Kafka with a registry: records keep the
 * fingerprint of the schema that wrote them, and a consumer reads every record in the topic's
 * current schema (a field added with a default, a field renamed with an alias), across restarts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import avro from 'avsc';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { SCHEMA_HEADER } from '../../services/eventlog/schema-store.js';
import { type EventLog, type LogMessage, UNDECODABLE_HEADER } from '../../services/ports/event-log.js';

const TOPIC = 'evolving.v1';
const v1 = {
  type: 'record',
  name: 'Reading',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'value', type: 'double' },
  ],
};
const v2 = {
  type: 'record',
  name: 'Reading',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'amount', type: 'double', aliases: ['value'] },
    { name: 'note', type: 'string', default: 'none' },
  ],
};
const typeV1 = avro.Type.forSchema(v1 as avro.Schema);
const typeV2 = avro.Type.forSchema(v2 as avro.Schema);

async function readAll(log: EventLog, count: number): Promise<LogMessage[]> {
  const seen: LogMessage[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const consumer = await log.runConsumer({
    groupId: `reader-${Math.random()}`,
    topics: [TOPIC],
    handleBatch: async (batch) => {
      seen.push(...batch.messages);
      if (seen.length >= count) done();
    },
  });
  await Promise.race([finished, new Promise((_, reject) => setTimeout(() => reject(new Error('timed out reading')), 10_000))]);
  await consumer.stop();
  return seen;
}

test('records written with an older schema are read back in the new one after a restart', async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-evolution-'));
  const before = await openFileEventLog({ directory, schemas: [{ topic: TOPIC, schema: v1 }], fsync: false });
  await before.createTopics([{ name: TOPIC, partitions: 2 }]);
  await before.produce(
    TOPIC,
    ['a', 'b', 'c'].map((id, i) => ({ key: id, value: typeV1.toBuffer({ id, value: i + 0.5 }) })),
  );
  await before.close();

  const after = await openFileEventLog({ directory, schemas: [{ topic: TOPIC, schema: v2 }], fsync: false });
  await after.produce(TOPIC, [{ key: 'd', value: typeV2.toBuffer({ id: 'd', amount: 9, note: 'new' }) }]);
  const messages = await readAll(after, 4);
  await after.close();

  const values = messages.map((m) => typeV2.fromBuffer(m.value)).sort((x, y) => String(x.id).localeCompare(String(y.id)));
  expect(values.map((v) => ({ ...v }))).toEqual([
    { id: 'a', amount: 0.5, note: 'none' },
    { id: 'b', amount: 1.5, note: 'none' },
    { id: 'c', amount: 2.5, note: 'none' },
    { id: 'd', amount: 9, note: 'new' },
  ]);
  // The schema bookkeeping stays inside the adapter.
  expect(messages.every((m) => m.headers[SCHEMA_HEADER] === undefined && m.headers[UNDECODABLE_HEADER] === undefined)).toBe(true);
  expect(fs.readdirSync(path.join(directory, 'schemas')).filter((f) => f.endsWith('.avsc'))).toHaveLength(2);
});

test('control: without the writer schema the old bytes do not decode as the new schema', () => {
  // What a log that decodes with today's schema only would face (the failure this design prevents).
  expect(() => typeV2.fromBuffer(typeV1.toBuffer({ id: 'a', value: 0.5 }))).toThrow();
});

test('a record whose writer schema is unknown reaches the consumer flagged, to be dead-lettered', async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-evolution-unknown-'));
  // As if written by a release whose schema file never reached this folder.
  const writer = await openFileEventLog({ directory, fsync: false });
  await writer.createTopics([{ name: TOPIC, partitions: 1 }]);
  await writer.produce(TOPIC, [{ key: 'x', value: Buffer.from('garbage'), headers: { [SCHEMA_HEADER]: '0123456789abcdef' } }]);
  await writer.close();
  const log = await openFileEventLog({ directory, schemas: [{ topic: TOPIC, schema: v2 }], fsync: false });
  const [message] = await readAll(log, 1);
  await log.close();
  expect(message!.headers[UNDECODABLE_HEADER]).toMatch(/writer schema 0123456789abcdef/);
});
