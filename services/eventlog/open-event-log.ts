/**
 * Picks the event-log adapter from config: Kafka (with Avro through the schema registry) when
 * KAFKA_BROKERS is set, the durable file log under DATA_DIR otherwise (with its own store of writer
 * schemas). Either way consumers read every value in the current schema of its topic.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { EventLog } from '../ports/event-log.js';
import { openFileEventLog } from './file-log.js';
import { openKafkaEventLog } from './kafka/kafka-event-log.js';
import { topicSchemas } from '../read-models/registry.js';

export async function openEventLog(config: Config, logger?: Logger): Promise<EventLog> {
  const { kafkaBrokers, schemaRegistryUrl } = config.engines;
  if (!kafkaBrokers) {
    return openFileEventLog({
      directory: path.join(config.dataDir, 'log'),
      schemas: topicSchemas(),
      segmentBytes: config.engines.fileLog.segmentBytes,
      retention: config.engines.fileLog,
      onRecordsLost: (loss) =>
        logger?.error({ loss }, 'event log: the hard byte cap deleted records a consumer group had not read (EVENT_LOG_HARD_CAP_BYTES)'),
      // A torn tail is what a crash mid-append leaves; cutting it is expected, but worth a line in the log.
      onTruncatedTail: (tail) => logger?.warn({ tail }, 'event log: cut a torn tail left by an interrupted append'),
      onCorruptRecord: (record) => logger?.error({ record }, 'event log: damaged record kept at its offset; it will be dead-lettered'),
    });
  }
  if (!schemaRegistryUrl) {
    // Values on Kafka are Avro in the Confluent wire format; without a registry no other consumer could read them.
    throw new Error('KAFKA_BROKERS is set without SCHEMA_REGISTRY_URL: the Kafka event log needs a schema registry');
  }
  return openKafkaEventLog({
    brokers: kafkaBrokers
      .split(',')
      .map((broker) => broker.trim())
      .filter(Boolean),
    schemaRegistryUrl,
    schemas: topicSchemas(),
    namespace: config.engines.kafkaNamespace,
    onLog: (level, message, extra) => logger?.[level]({ kafka: extra }, message),
  });
}
