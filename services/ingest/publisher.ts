/** Encodes events with their Avro schema and produces them keyed by market; bad records go to the dead-letter topic. */
import type { EventLog } from '../ports/event-log.js';
import { encodeEvent, schemaViolation, type DeadLetter, type EventsByTopic } from '../shared/events.js';
import { TOPICS, type TopicKey } from '../shared/topics.js';

export type EventTopic = Exclude<TopicKey, 'deadLetters'>;

/** Partition key: market id (per-market order), else the entity's own id for catalog topics. */
function keyOf(event: Record<string, unknown>): string {
  for (const field of ['market_id', 'gamma_event_id', 'series_id', 'tag_id', 'wallet']) {
    const value = event[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return String(event.event_id);
}

/** Log timestamp: when the thing happened upstream where the event says so, else when we saw it. */
function timestampOf(event: Record<string, unknown>): number {
  const value = event.timestamp_ms ?? event.snapshot_at_ms ?? event.ingested_at_ms;
  return typeof value === 'number' ? value : Date.now();
}

export class EventPublisher {
  constructor(private readonly log: EventLog) {}

  async publishMarkets(events: EventsByTopic['markets'][]): Promise<number> {
    return this.publish('markets', events);
  }

  async publishTrades(events: EventsByTopic['trades'][]): Promise<number> {
    return this.publish('trades', events);
  }

  async deadLetter(entries: DeadLetter[]): Promise<void> {
    if (entries.length === 0) return;
    await this.log.produce(
      TOPICS.deadLetters.name,
      entries.map((entry) => ({ key: entry.origin, value: encodeEvent('deadLetters', entry), timestamp: entry.at_ms })),
    );
  }

  async publish<K extends EventTopic>(topic: K, events: EventsByTopic[K][]): Promise<number> {
    if (events.length === 0) return 0;
    const messages = events.map((event) => {
      const violation = schemaViolation(topic, event);
      // A normalizer bug, not bad upstream data: fail loudly rather than publish half an event.
      if (violation) throw new Error(`${TOPICS[topic].name}: ${violation}`);
      const record = event as unknown as Record<string, unknown>;
      return {
        key: keyOf(record),
        value: encodeEvent(topic, event),
        headers: { event_id: String(record.event_id), source: String(record.source) },
        timestamp: timestampOf(record),
      };
    });
    await this.log.produce(TOPICS[topic].name, messages);
    return messages.length;
  }
}
