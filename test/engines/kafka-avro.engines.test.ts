/**
 * Kafka specifics on a real broker and a real Confluent-compatible registry (Apicurio): values in
 * the Confluent wire format, byte-identical to the registry client's own encoder; schema evolution
 * under an explicit BACKWARD compatibility level; key placement identical to the file log's
 * partitioner; poison messages dead-lettered without stopping the sink; a value of an older writer
 * schema redelivered, not dead-lettered, while the registry does not answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';
import { pino } from 'pino';
import { openKafkaEventLog } from '../../services/eventlog/kafka/kafka-event-log.js';
import { STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { partitionForKey } from '../../services/eventlog/partitioner.js';
import { EventPublisher } from '../../services/events/publisher.js';
import { type EventLog, type LogMessage, type RunningConsumer, UNDECODABLE_HEADER } from '../../services/ports/event-log.js';
import { startSink } from '../../services/sink/sink-service.js';
import { syntheticTrades } from '../../bench/synthetic-trades.js';
import { engineAddresses, uniqueName } from './engines.js';
import { allTopicSpecs, openPipelineLog, pipelineFixture, storedTotals, waitUntil } from './pipeline-fixture.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function track<T extends { close(): Promise<void> } | { stop(): Promise<void> }>(thing: T): T {
  cleanups.push(() => ('close' in thing ? thing.close() : thing.stop()));
  return thing;
}

async function collect(log: EventLog, topic: string, count: number): Promise<LogMessage[]> {
  const messages: LogMessage[] = [];
  const consumer: RunningConsumer = track(
    await log.runConsumer({
      groupId: uniqueName('g'),
      topics: [topic],
      handleBatch: async (batch) => void messages.push(...batch.messages),
    }),
  );
  await waitUntil(`${count} messages on ${topic}`, async () => messages.length >= count, 30_000);
  await consumer.stop();
  return messages;
}

const rawLog = (namespace = '') => openKafkaEventLog({ brokers: [engineAddresses().kafkaBrokers], namespace });

test('values are Avro in the Confluent wire format, byte-identical to the registry client encoder', async () => {
  const namespace = `${uniqueName('wire')}.`;
  const log = track(await openPipelineLog(namespace));
  await log.createTopics(allTopicSpecs());
  const [trade] = syntheticTrades(1, 5, 21);
  await new EventPublisher(log).publish('trades', [trade!]);

  const [raw] = await collect(track(await rawLog(namespace)), STREAMS.trades.topic, 1);
  const registry = new SchemaRegistry({ host: engineAddresses().schemaRegistryUrl });
  const id = await registry.getLatestSchemaId(`${namespace}${STREAMS.trades.topic}-value`);
  expect(raw!.value[0]).toBe(0);
  expect(raw!.value.readUInt32BE(1)).toBe(id);
  expect(Buffer.compare(raw!.value, await registry.encode(id, trade))).toBe(0);
  expect(await registry.decode(raw!.value)).toEqual(trade);

  // Through the adapter, consumers get our plain Avro back.
  const [decoded] = await collect(log, STREAMS.trades.topic, 1);
  expect(STREAMS.trades.codec.decode(decoded!.value)).toEqual(trade);
});

test('schema evolution: a field added with a default is BACKWARD compatible both ways; one without a default is refused', async () => {
  const topic = uniqueName('evolution');
  const v1 = topicSchemas().find((s) => s.topic === STREAMS.trades.topic)!.schema as { fields: unknown[] };
  const v2 = { ...v1, fields: [...v1.fields, { name: 'venue', type: 'string', default: 'polymarket' }] };
  const open = (schema: object) =>
    openKafkaEventLog({
      brokers: [engineAddresses().kafkaBrokers],
      schemaRegistryUrl: engineAddresses().schemaRegistryUrl,
      schemas: [{ topic, schema: schema as Record<string, unknown> }],
    });
  const [old, newer] = syntheticTrades(2, 5, 22);
  const typeV1 = avro.Type.forSchema(v1 as avro.Schema);
  const typeV2 = avro.Type.forSchema(v2 as avro.Schema);

  const logV1 = track(await open(v1));
  await logV1.createTopics([{ name: topic, partitions: 1 }]);
  await logV1.produce(topic, [{ key: old!.market_id, value: typeV1.toBuffer(old) }]);
  const logV2 = track(await open(v2));
  await logV2.produce(topic, [{ key: newer!.market_id, value: typeV2.toBuffer({ ...newer, venue: 'clob' }) }]);

  const readByV2 = (await collect(logV2, topic, 2)).map((m) => typeV2.fromBuffer(m.value) as { event_id: string; venue: string });
  expect(readByV2.map((e) => [e.event_id, e.venue])).toEqual([
    [old!.event_id, 'polymarket'],
    [newer!.event_id, 'clob'],
  ]);
  const readByV1 = (await collect(logV1, topic, 2)).map((m) => typeV1.fromBuffer(m.value) as { event_id: string });
  expect(readByV1.map((e) => e.event_id)).toEqual([old!.event_id, newer!.event_id]);
  expect(readByV1[1]).not.toHaveProperty('venue');

  const v3 = { ...v2, fields: [...v2.fields, { name: 'required_without_default', type: 'string' }] };
  await expect(open(v3)).rejects.toThrow(/compatib|409/i);
});

test('keys land in the same partitions as on the file log (murmur2, like the Java client)', async () => {
  const log = track(await rawLog());
  const topic = uniqueName('placement');
  await log.createTopics([{ name: topic, partitions: 8 }]);
  const keys = Array.from({ length: 120 }, (_, i) => `0x${(i * 7919).toString(16).padStart(64, '0')}`);
  await log.produce(
    topic,
    keys.map((key) => ({ key, value: Buffer.from(key) })),
  );
  const received = await collect(log, topic, keys.length);
  expect(new Set(received.map((m) => m.partition)).size).toBeGreaterThan(4);
  for (const message of received) expect(message.partition).toBe(partitionForKey(message.key, 8));
});

test('a poison message is dead-lettered with its coordinates and the sink carries on', async () => {
  const fixture = await pipelineFixture();
  cleanups.push(() => fixture.cleanup());
  const log = track(await openPipelineLog(fixture.namespace));
  await log.createTopics(allTopicSpecs());
  const raw = track(await rawLog(fixture.namespace));
  const trades = syntheticTrades(20, 1, 23);
  await raw.produce(STREAMS.trades.topic, [{ key: trades[0]!.market_id, value: Buffer.from('not avro at all') }]);
  await new EventPublisher(log).publish('trades', trades);
  const store = track(await fixture.openStore());
  track(await startSink(log, store, pino({ level: 'silent' })));

  const [deadLetter] = await collect(log, STREAMS.deadLetters.topic, 1);
  const entry = STREAMS.deadLetters.codec.decode(deadLetter!.value);
  expect(entry.stage).toBe('sink');
  expect(entry.origin).toMatch(new RegExp(`^${STREAMS.trades.topic}/\\d+/0$`));
  expect(entry.reason).toMatch(/Confluent wire format/);
  expect(Buffer.from(entry.raw, 'base64').toString()).toBe('not avro at all');
  await waitUntil('the 20 valid trades', async () => (await storedTotals(store)).candleTrades === 20, 30_000);
});

/** The registry behind a loopback proxy whose schema-by-id lookups can be held unanswered. */
async function stallingRegistry(target: string): Promise<{ url: string; stall: boolean; held: number; close(): Promise<void> }> {
  const held: http.ServerResponse[] = [];
  const state = { stall: false, held: 0 };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      if (state.stall && request.method === 'GET' && request.url?.startsWith('/schemas/ids/')) {
        state.held++;
        held.push(response);
        return;
      }
      const upstream = await fetch(`${target}${request.url}`, {
        method: request.method,
        headers: { 'content-type': request.headers['content-type'] ?? 'application/json' },
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      response.end(Buffer.from(await upstream.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

test('a value of an older writer schema is redelivered while the registry cannot be asked, not dead-lettered as unreadable', async () => {
  const topic = uniqueName('registry-stall');
  const v1 = topicSchemas().find((s) => s.topic === STREAMS.trades.topic)!.schema as { fields: unknown[] };
  const v2 = { ...v1, fields: [...v1.fields, { name: 'venue', type: 'string', default: 'polymarket' }] };
  const [old] = syntheticTrades(1, 5, 24);
  const logV1 = track(
    await openKafkaEventLog({
      brokers: [engineAddresses().kafkaBrokers],
      schemaRegistryUrl: engineAddresses().schemaRegistryUrl,
      schemas: [{ topic, schema: v1 as Record<string, unknown> }],
    }),
  );
  await logV1.createTopics([{ name: topic, partitions: 1 }]);
  await logV1.produce(topic, [{ key: old!.market_id, value: avro.Type.forSchema(v1 as avro.Schema).toBuffer(old) }]);

  const proxy = await stallingRegistry(engineAddresses().schemaRegistryUrl);
  cleanups.push(() => proxy.close());
  const logV2 = track(
    await openKafkaEventLog({
      brokers: [engineAddresses().kafkaBrokers],
      schemaRegistryUrl: proxy.url,
      schemaRegistryTimeoutMs: 300,
      schemas: [{ topic, schema: v2 as Record<string, unknown> }],
    }),
  );
  proxy.stall = true;
  const delivered: LogMessage[] = [];
  track(
    await logV2.runConsumer({
      groupId: uniqueName('g'),
      topics: [topic],
      handleBatch: async (batch) => void delivered.push(...batch.messages),
    }),
  );
  // The consumer asks for the v1 schema, gets no answer, and tries again; nothing reaches the handler.
  await waitUntil('two unanswered schema lookups', async () => proxy.held >= 2, 30_000);
  expect(delivered).toEqual([]);
  proxy.stall = false;
  await waitUntil('the value delivered', async () => delivered.length >= 1, 60_000);
  expect(delivered[0]!.headers[UNDECODABLE_HEADER]).toBeUndefined();
  const read = avro.Type.forSchema(v2 as avro.Schema).fromBuffer(delivered[0]!.value) as { event_id: string; venue: string };
  expect([read.event_id, read.venue]).toEqual([old!.event_id, 'polymarket']);
}, 120_000);
