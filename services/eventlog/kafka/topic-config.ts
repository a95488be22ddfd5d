/**
 * Broker-side settings of every topic the Kafka adapter creates (partition counts are declared with
 * each stream, services/read-models/<name>/index.ts). Replication factor 1 fits the single-node broker of
 * infra/; a cluster wants 3 and min.insync.replicas 2.
 */
export const KAFKA_TOPIC_CONFIG = {
  replicationFactor: 1,
  configEntries: {
    // Producer timestamps are event times (a backfilled trade can be months old), so time-based
    // retention would delete history at once: events are the source of truth for rebuilding
    // ClickHouse, so keep them, bounded by size per partition instead.
    'retention.ms': '-1',
    'retention.bytes': String(8 * 1024 ** 3),
    'cleanup.policy': 'delete',
    'message.timestamp.type': 'CreateTime',
    'min.insync.replicas': '1',
  },
} as const;
