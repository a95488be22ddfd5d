/** Encodes events with their Avro schema and produces them keyed by market; bad records go to the dead-letter topic. */
import type { EventLog } from '../ports/event-log.js';
import { encodeEvent, schemaViolation, type DeadLetter, type EventsByTopic } from '../shared/events.js';
import { TOPICS } from '../shared/topics.js';

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

  private async publish<K extends 'markets' | 'trades'>(topic: K, events: EventsByTopic[K][]): Promise<number> {
    if (events.length === 0) return 0;
    const messages = events.map((event) => {
      const violation = schemaViolation(topic, event);
      // A normalizer bug, not bad upstream data: fail loudly rather than publish half an event.
      if (violation) throw new Error(`${TOPICS[topic].name}: ${violation}`);
      return {
        key: event.market_id,
        value: encodeEvent(topic, event),
        headers: { event_id: event.event_id, source: event.source },
        timestamp: topic === 'trades' ? (event as EventsByTopic['trades']).timestamp_ms : event.ingested_at_ms,
      };
    });
    await this.log.produce(TOPICS[topic].name, messages);
    return messages.length;
  }
}
