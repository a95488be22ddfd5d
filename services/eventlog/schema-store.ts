/**
 * Writer schemas of the embedded file log, so it resolves schema evolution the way Kafka with a
 * schema registry does. Each record of a topic with a schema carries the fingerprint of the schema
 * it was written with (a header); the schema itself is kept once under <log>/schemas/<fp>.avsc.
 * A consumer receives every value in the topic's current (reader) schema: values written with
 * another schema are decoded with Avro's resolution (e.g. a field added with a default, a field
 * renamed with an alias) and re-encoded. A value that cannot be resolved reaches the consumer with
 * UNDECODABLE_HEADER saying why, to be dead-lettered like any poison message.
 */
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import avro from 'avsc';
import { schemaFingerprint } from '../events/avro.js';
import { type LogMessage, UNDECODABLE_HEADER } from '../ports/event-log.js';
import { writeFileAtomically } from './atomic-file.js';

export interface TopicSchema {
  topic: string;
  /** Avro schema (parsed JSON of a .avsc file). */
  schema: Record<string, unknown>;
}

/** Header holding the writer schema's fingerprint. */
export const SCHEMA_HEADER = 'tapeline-schema';

interface Reader {
  type: avro.Type;
  fingerprint: string;
  resolvers: Map<string, avro.Resolver>;
}

export class FileSchemaStore {
  private readonly readers = new Map<string, Reader>();
  private readonly writers = new Map<string, avro.Type>();

  private constructor(
    private readonly directory: string,
    private readonly fsync: boolean,
  ) {}

  /** Opens the store and records the current schema of every topic (before anything is produced with it). */
  static async open(directory: string, topics: readonly TopicSchema[], options: { fsync: boolean }): Promise<FileSchemaStore> {
    await mkdir(directory, { recursive: true });
    const store = new FileSchemaStore(directory, options.fsync);
    const known = new Set(await readdir(directory));
    for (const { topic, schema } of topics) {
      const type = avro.Type.forSchema(schema as avro.Schema);
      const fingerprint = schemaFingerprint(type);
      store.readers.set(topic, { type, fingerprint, resolvers: new Map() });
      store.writers.set(fingerprint, type);
      const file = `${fingerprint}.avsc`;
      if (!known.has(file)) await writeFileAtomically(join(directory, file), JSON.stringify(schema), { fsync: store.fsync });
      known.add(file);
    }
    return store;
  }

  /** Headers to store with a record produced to `topic` now. */
  headersFor(topic: string): Record<string, string> | undefined {
    const reader = this.readers.get(topic);
    return reader ? { [SCHEMA_HEADER]: reader.fingerprint } : undefined;
  }

  /** The message with its value in the topic's current schema (or flagged undecodable), without the schema header. */
  async toReader(message: LogMessage): Promise<LogMessage> {
    const written = message.headers[SCHEMA_HEADER];
    if (written === undefined) return message;
    const { [SCHEMA_HEADER]: _, ...headers } = message.headers;
    const reader = this.readers.get(message.topic);
    // Records written before schemas were tracked (no header) and topics without a schema pass as they are.
    if (!reader || written === reader.fingerprint) return { ...message, headers };
    try {
      const resolver = await this.resolver(reader, written);
      const value = reader.type.toBuffer(reader.type.fromBuffer(message.value, resolver));
      return { ...message, headers, value };
    } catch (error) {
      return { ...message, headers: { ...headers, [UNDECODABLE_HEADER]: `writer schema ${written}: ${(error as Error).message}` } };
    }
  }

  private async resolver(reader: Reader, fingerprint: string): Promise<avro.Resolver> {
    let resolver = reader.resolvers.get(fingerprint);
    if (!resolver) {
      resolver = reader.type.createResolver(await this.writer(fingerprint));
      reader.resolvers.set(fingerprint, resolver);
    }
    return resolver;
  }

  private async writer(fingerprint: string): Promise<avro.Type> {
    let type = this.writers.get(fingerprint);
    if (!type) {
      if (!/^[0-9a-f]{16}$/.test(fingerprint)) throw new Error('malformed schema fingerprint');
      // Written by another process (a newer or older release) sharing this log.
      const schema = JSON.parse(await readFile(join(this.directory, `${fingerprint}.avsc`), 'utf8'));
      type = avro.Type.forSchema(schema);
      this.writers.set(fingerprint, type);
    }
    return type;
  }
}
