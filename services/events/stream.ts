/**
 * A stream is a topic of the event log with one Avro schema and a declared partition key. Events
 * with the same key land on the same partition in produce order, so each stream states what must
 * stay in order (for market data: the market).
 */
import { codecFor, type EventCodec } from './avro.js';
import type { EventsBySchema, SchemaName } from './types.generated.js';

export interface Stream<E = unknown> {
  readonly name: string;
  readonly topic: string;
  readonly partitions: number;
  readonly schema: SchemaName;
  readonly codec: EventCodec<E>;
  /** Partition key. */
  key(event: E): string;
  /** Log timestamp: when the thing happened upstream where the event says so, else when it was seen. */
  time(event: E): number;
}

export interface StreamDefinition<N extends string, S extends SchemaName> {
  name: N;
  topic: string;
  partitions: number;
  schema: S;
  key: (event: EventsBySchema[S]) => string;
  time: (event: EventsBySchema[S]) => number;
}

export type EventOf<T> = T extends Stream<infer E> ? E : never;

export function defineStream<const N extends string, S extends SchemaName>(
  definition: StreamDefinition<N, S>,
): Stream<EventsBySchema[S]> & { readonly name: N } {
  return { ...definition, codec: codecFor(definition.schema) };
}
