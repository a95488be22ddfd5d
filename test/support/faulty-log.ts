/** An event log that fails chosen produce calls, wrapped around a real one: the "publish failure" fault for tests. */
import type { EventLog, OutgoingMessage } from '../../services/ports/event-log.js';

export interface FaultyLog extends EventLog {
  /** The next `calls` produce calls to `topic` reject (the messages are not written). */
  failNext(topic: string, calls: number): void;
  /** Produce calls that were refused so far. */
  readonly refused: number;
}

export function faultyLog(inner: EventLog): FaultyLog {
  const failing = new Map<string, number>();
  let refused = 0;
  return {
    createTopics: (topics) => inner.createTopics(topics),
    runConsumer: (options) => inner.runConsumer(options),
    positions: (group, topic) => inner.positions(group, topic),
    partitionOffsets: (topic) => inner.partitionOffsets(topic),
    read: (topic, partition, fromOffset, maxMessages) => inner.read(topic, partition, fromOffset, maxMessages),
    close: () => inner.close(),
    async produce(topic: string, messages: OutgoingMessage[]) {
      const left = failing.get(topic) ?? 0;
      if (left > 0) {
        failing.set(topic, left - 1);
        refused += 1;
        throw new Error(`injected fault: produce to ${topic} refused`);
      }
      await inner.produce(topic, messages);
    },
    failNext(topic, calls) {
      failing.set(topic, calls);
    },
    get refused() {
      return refused;
    },
  };
}
