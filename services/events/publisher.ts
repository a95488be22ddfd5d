/**
 * Publishes events to their stream: validated against the stream's Avro schema (strictly: an
 * undeclared field is an error, not silently dropped), encoded, keyed by the stream's declared key.
 */
import type { EventLog } from '../ports/event-log.js';
import { STREAMS, type StreamName } from '../read-models/registry.js';
import type { DeadLetter } from './dead-letters.js';
import type { EventOf, Stream } from './stream.js';

export type EventStreamName = Exclude<StreamName, 'deadLetters'>;
export type EventOfStream<N extends StreamName> = EventOf<(typeof STREAMS)[N]>;

export class EventPublisher {
  constructor(private readonly log: EventLog) {}

  deadLetter(entries: DeadLetter[]): Promise<number> {
    return this.publish('deadLetters', entries);
  }

  async publish<N extends StreamName>(name: N, events: EventOfStream<N>[]): Promise<number> {
    if (events.length === 0) return 0;
    const stream = STREAMS[name] as unknown as Stream<EventOfStream<N>>;
    const messages = events.map((event) => {
      const violation = stream.codec.violation(event);
      // A normalizer bug, not bad upstream data: fail loudly rather than publish half an event.
      if (violation) throw new Error(`${stream.topic}: ${violation}`);
      const record = event as unknown as Record<string, unknown>;
      return {
        key: stream.key(event),
        value: stream.codec.encode(event),
        headers: { ...(typeof record.event_id === 'string' ? { event_id: record.event_id } : {}), source: String(record.source) },
        timestamp: stream.time(event),
      };
    });
    await this.log.produce(stream.topic, messages);
    return messages.length;
  }
}
