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
import { type BackoffPolicy, backoffMs } from '../../shared/backoff.js';

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
  /** Each registry call fails after this long without an answer. Default REGISTRY_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Back-off between attempts at registering a schema. Default 200 ms doubling to 5 s. */
  registerBackoff?: BackoffPolicy;
  /** Called before each retry of a registration that failed for a reason that can pass. */
  onRetry?: (subject: string, attempt: number, error: Error) => void;
}

/**
 * The registry client sets no timeout of its own, so a registry that accepts a connection and never
 * answers would hold startup (registration) or a partition (decoding a value of another writer
 * schema) for as long as the socket stays open, without a word in the logs.
 */
const REGISTRY_TIMEOUT_MS = 10_000;
/** Attempts at registering one schema (the client itself retries only GETs, and registering is a POST). */
export const REGISTER_ATTEMPTS = 6;

/**
 * The registry did not answer, or answered with a server error: a reason that can pass. A value is
 * not poison because the registry was down while it was decoded, so the consumer redelivers its batch
 * instead of dead-lettering it.
 */
export class RegistryUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryUnavailableError';
  }
}

/**
 * The client's errors carry the HTTP status. A call that got no answer (timeout, refused or reset
 * connection) comes back with status 400 and the socket's message; 408, 429 and 5xx are the
 * registry's own "not now". Other statuses (404 unknown id, 409 incompatible, 422 invalid) are answers.
 */
function unavailable(error: unknown): RegistryUnavailableError | null {
  const status = (error as { status?: unknown } | null)?.status;
  const message = (error as Error | null)?.message ?? String(error);
  // No status: not an HTTP call's error (e.g. bytes the Avro decoder could not read).
  if (typeof status !== 'number') return null;
  const noAnswer = status === 400 && /timeout|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|EHOSTUNREACH/i.test(message);
  if (noAnswer || status === 408 || status === 429 || status >= 500)
    return new RegistryUnavailableError(`schema registry unavailable: ${message}`);
  return null;
}

type Middleware = NonNullable<ConstructorParameters<typeof SchemaRegistry>[0]['middlewares']>[number];

/** Gives every call of the registry client a timeout unless the call set one. */
const timeoutMiddleware =
  (ms: number): Middleware =>
  () => ({
    async prepareRequest(next) {
      const request = await next();
      return request.timeout() ? request : request.enhance({ timeout: ms });
    },
  });

/** Subject naming: Confluent's TopicNameStrategy for message values. */
function valueSubject(topic: string): string {
  return `${topic}-value`;
}

export class ConfluentAvroCodec {
  private readonly registry: SchemaRegistry;
  private readonly byTopic = new Map<string, { id: number; type: avro.Type; schema: Record<string, unknown> }>();

  constructor(private readonly options: ConfluentAvroOptions) {
    this.registry = new SchemaRegistry({
      host: options.registryUrl,
      retry: { retries: 5 },
      middlewares: [timeoutMiddleware(options.timeoutMs ?? REGISTRY_TIMEOUT_MS)],
    });
  }

  /**
   * Registers (idempotently) the value schema of every topic; run at startup. A registration that got
   * no answer or a server error is tried again (REGISTER_ATTEMPTS in all): registering the same schema
   * again returns the same id. An answer such as 409 (incompatible) fails at once.
   */
  async register(topics: TopicSchema[]): Promise<void> {
    const backoff = this.options.registerBackoff ?? { baseMs: 200, maxMs: 5_000, jitter: 'equal' };
    for (const { topic, schema } of topics) {
      const subject = valueSubject(topic);
      for (let attempt = 1; ; attempt++) {
        try {
          const { id } = await this.registry.register(
            { type: SchemaType.AVRO, schema: JSON.stringify(schema) },
            { subject, compatibility: this.options.compatibility ?? COMPATIBILITY.BACKWARD },
          );
          this.byTopic.set(topic, { id, type: avro.Type.forSchema(schema as avro.Schema), schema });
          break;
        } catch (error) {
          const transient = unavailable(error);
          if (!transient || attempt >= REGISTER_ATTEMPTS) throw transient ?? error;
          this.options.onRetry?.(subject, attempt, transient);
          await new Promise((resolve) => setTimeout(resolve, backoffMs(backoff, attempt)));
        }
      }
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

  /**
   * Confluent wire format -> plain Avro bytes of our schema. Rejects on a value it cannot read, and
   * with RegistryUnavailableError when the registry could not be asked (the value may be fine).
   */
  async decode(topic: string, wire: Buffer): Promise<Buffer> {
    const entry = this.byTopic.get(topic);
    if (!entry) return wire;
    if (wire.length < HEADER_BYTES || wire.readUInt8(0) !== MAGIC_BYTE) {
      throw new Error('not in the Confluent wire format (no magic byte)');
    }
    if (wire.readUInt32BE(1) === entry.id) return wire.subarray(HEADER_BYTES);
    let value: unknown;
    try {
      value = await this.registry.decode(wire, { [SchemaType.AVRO]: { readerSchema: entry.schema as never } });
    } catch (error) {
      throw unavailable(error) ?? error;
    }
    return entry.type.toBuffer(value);
  }
}
