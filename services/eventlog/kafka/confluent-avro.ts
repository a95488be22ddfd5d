/**
 * Avro values in the Confluent wire format (magic byte 0, 4-byte big-endian schema id, Avro binary)
 * through a Confluent-compatible schema registry. The port carries plain Avro binary of our own
 * schemas (services/events/avro.ts), so this codec sits inside the Kafka adapter:
 * - produce: our Avro bytes + the 5-byte header of our registered schema id (byte-identical to
 *   `SchemaRegistry.encode`, without decoding and re-encoding every value);
 * - consume: a value written with our schema id loses its header; one written with another id
 *   (an older or newer writer schema) is decoded by the registry client with our schema as the
 *   reader schema (Avro schema resolution, e.g. a field added with a default) and re-encoded.
 */
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';

export { COMPATIBILITY };

const MAGIC_BYTE = 0;
const HEADER_BYTES = 5;

export interface TopicSchema {
  topic: string;
  /** Avro schema (parsed JSON of a .avsc file). */
  schema: Record<string, unknown>;
}

export interface ConfluentAvroOptions {
  registryUrl: string;
  /**
   * Compatibility level set on every subject we register. BACKWARD (the Confluent default) lets a
   * new reader schema read data written with the previous one; it is passed explicitly because
   * Apicurio reports NONE for a subject without a rule.
   */
  compatibility?: COMPATIBILITY;
}

/** Subject naming: Confluent's TopicNameStrategy for message values. */
export function valueSubject(topic: string): string {
  return `${topic}-value`;
}

export class ConfluentAvroCodec {
  private readonly registry: SchemaRegistry;
  private readonly byTopic = new Map<string, { id: number; type: avro.Type; schema: Record<string, unknown> }>();

  constructor(private readonly options: ConfluentAvroOptions) {
    this.registry = new SchemaRegistry({ host: options.registryUrl, retry: { retries: 5 } });
  }

  /** Registers (idempotently) the value schema of every topic; run at startup. */
  async register(topics: TopicSchema[]): Promise<void> {
    for (const { topic, schema } of topics) {
      const { id } = await this.registry.register(
        { type: SchemaType.AVRO, schema: JSON.stringify(schema) },
        { subject: valueSubject(topic), compatibility: this.options.compatibility ?? COMPATIBILITY.BACKWARD },
      );
      this.byTopic.set(topic, { id, type: avro.Type.forSchema(schema as avro.Schema), schema });
    }
  }

  handles(topic: string): boolean {
    return this.byTopic.has(topic);
  }

  schemaId(topic: string): number | undefined {
    return this.byTopic.get(topic)?.id;
  }

  /** Plain Avro bytes of our schema -> Confluent wire format. */
  encode(topic: string, avroBytes: Buffer): Buffer {
    const entry = this.byTopic.get(topic);
    if (!entry) return avroBytes;
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt8(MAGIC_BYTE, 0);
    header.writeUInt32BE(entry.id, 1);
    return Buffer.concat([header, avroBytes]);
  }

  /** Confluent wire format -> plain Avro bytes of our schema. Rejects on a value it cannot read. */
  async decode(topic: string, wire: Buffer): Promise<Buffer> {
    const entry = this.byTopic.get(topic);
    if (!entry) return wire;
    if (wire.length < HEADER_BYTES || wire.readUInt8(0) !== MAGIC_BYTE) {
      throw new Error('not in the Confluent wire format (no magic byte)');
    }
    if (wire.readUInt32BE(1) === entry.id) return wire.subarray(HEADER_BYTES);
    const value = await this.registry.decode(wire, { [SchemaType.AVRO]: { readerSchema: entry.schema as never } });
    return entry.type.toBuffer(value);
  }
}
