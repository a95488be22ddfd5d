/**
 * Avro codecs of the event schemas in schemas/ (the one source of every event's fields; the TS types
 * in types.generated.ts are derived from the same files). Values on the log are Avro binary, so a
 * schema violation fails when an event is produced, not later in a consumer.
 */
import { getOrInsert } from '../shared/collections.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';
import type { EventsBySchema, SchemaName } from './types.generated.js';

export const SCHEMA_DIRECTORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schemas');

export type AvroSchema = Record<string, unknown>;

/** 64 bits of the SHA-256 of the schema's Parsing Canonical Form: equal for schemas that encode alike. */
export function schemaFingerprint(type: avro.Type): string {
  return type.fingerprint('sha256').toString('hex').slice(0, 16);
}

export class EventCodec<E> {
  readonly type: avro.Type;
  readonly fingerprint: string;
  /** Top-level string fields restricted by `x-symbols`, checked on produce (null passes where the type allows it). */
  private readonly symbols: Array<[field: string, allowed: Set<string>, nullable: boolean]>;
  private readonly declared: Set<string>;

  constructor(
    readonly name: string,
    readonly schema: AvroSchema,
  ) {
    this.type = avro.Type.forSchema(schema as avro.Schema);
    this.fingerprint = schemaFingerprint(this.type);
    const fields = (schema.fields ?? []) as Array<{ name: string; type: unknown; 'x-symbols'?: string[] }>;
    this.declared = new Set(fields.map((f) => f.name));
    this.symbols = fields
      .filter((f) => f['x-symbols'])
      .map((f) => [f.name, new Set(f['x-symbols']), Array.isArray(f.type) && f.type.includes('null')]);
  }

  encode(event: E): Buffer {
    return this.type.toBuffer(event);
  }

  decode(bytes: Buffer): E {
    return this.type.fromBuffer(bytes) as E;
  }

  /**
   * Why the value does not fit the schema, or null when it does. Strict: a field the schema does
   * not declare is a violation too (it would otherwise be dropped silently by the encoder).
   */
  violation(event: E): string | null {
    const paths: string[] = [];
    // The check without an error hook is several times faster; the paths are only worked out for a bad value.
    const valid =
      this.type.isValid(event, { noUndeclaredFields: true }) ||
      this.type.isValid(event, { noUndeclaredFields: true, errorHook: (p) => paths.push(p.join('.') || '(record)') });
    if (!valid) {
      const undeclared = Object.keys(event as object).filter((k) => !this.declared.has(k));
      const detail = [...new Set([...paths, ...undeclared.map((k) => `${k} (not in the schema)`)])].join(', ');
      return `fields not matching ${this.name}: ${detail}`;
    }
    const record = event as Record<string, unknown>;
    for (const [field, allowed, nullable] of this.symbols) {
      if (nullable && record[field] === null) continue;
      if (!allowed.has(String(record[field])))
        return `fields not matching ${this.name}: ${field} must be one of ${[...allowed].join(', ')}`;
    }
    return null;
  }
}

const codecs = new Map<string, EventCodec<unknown>>();

export function readSchema(name: string): AvroSchema {
  return JSON.parse(fs.readFileSync(path.join(SCHEMA_DIRECTORY, `${name}.avsc`), 'utf8')) as AvroSchema;
}

/** The codec of a schema file in schemas/ (loaded once per process). */
export function codecFor<S extends SchemaName>(name: S): EventCodec<EventsBySchema[S]> {
  return getOrInsert(codecs, name, () => new EventCodec(name, readSchema(name))) as EventCodec<EventsBySchema[S]>;
}
