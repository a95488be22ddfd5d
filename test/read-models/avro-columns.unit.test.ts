/**
 * Every field of every event the sink stores reaches a column: changing the field's value in a valid
 * event changes a column of some row the stream's projections write. Both sides come from their
 * sources - the fields from schemas/*.avsc, the columns from the projections' row mappers (the rows
 * those mappers return name exactly the tables' columns: schema-conformance.int.test.ts holds them to
 * `system.columns` of the migrated tables). So a field added to a schema but never mapped, or mapped
 * into nothing, fails here without an engine. A field kept out of ClickHouse on purpose is listed in
 * NOT_A_COLUMN with where it goes instead.
 */
import { isDeepStrictEqual } from 'node:util';
import fs from 'node:fs';
import { SCHEMA_DIRECTORY, readSchema } from '../../services/events/avro.js';
import type { Stream } from '../../services/events/stream.js';
import { ALL_PROJECTIONS, ALL_STREAMS, type StreamName } from '../../services/read-models/registry.js';
import { EXAMPLES } from '../support/events.js';

/**
 * Schemas no consumer writes to ClickHouse, and why. Every other schema must feed at least one table
 * through a row projection.
 */
const NOT_STORED: Record<string, string> = {
  // Dead letters stay on their own topic (tapeline.dead-letters.v1) with the raw payload; they are
  // counted in /metrics and /v1/health, not projected into a table.
  'dead-letter.v1': 'kept on the dead-letter topic',
  // Signals are read by the `signals` stream channel from their topic; webhook deliveries are the control store's outbox.
  'signal.v1': 'kept on the signals topic for the signals stream channel',
};

/**
 * The event's id on the log (its dedup header) is derived from fields that are stored: the entity's
 * id and a hash of its content (services/ingest/content-id.ts), the entity and snapshot time
 * (holders, open interest, positions), or the market and revision (lifecycle). The row's identity is
 * its table's key columns.
 */
const DERIVED_ID = 'derived from stored fields; the table key identifies the row';

/**
 * Fields (by path: `record.field`, `array[].field`) that reach no column of the tables the sink writes
 * for their stream, each with where it goes instead. The list must be exact: a listed field that does
 * reach a column fails too, so the list cannot go stale.
 */
const NOT_A_COLUMN: Record<string, Record<string, string>> = {
  'chain.ledger.v1': {
    // A conversion's inputs: the position ledger (a projection with state of its own, position_ledger)
    // turns them into the legs it stores; chain_ledger keeps the conversion's index set and amount.
    'conversion.neg_risk_market_id': 'position ledger: finds the catalog questions of a conversion published without its own',
    'conversion.fee_bips': "position ledger: the adapter's fee on each YES leg and on the collateral",
    'conversion.questions[].question_index': 'position ledger: which questions index_set gives up',
    'conversion.questions[].market_id': "position ledger: each leg's market",
    'conversion.questions[].outcome_token_ids': "position ledger: each leg's YES and NO token",
    'conversion.questions[].outcomes': "position ledger: each leg's outcome names",
    'conversion.questions[].yes_index': 'position ledger: which token of the question is YES',
    // Provenance of the conversion's question count and fee, for audit on the log (docs/CHAIN.md); no consumer reads them.
    'conversion.question_count': 'the length of conversion.questions, which the position ledger reads',
    'conversion.questions_from': 'log only: where question_count came from (chain, transaction, catalog)',
    'conversion.fee_from': 'log only: where fee_bips came from (chain, transaction, assumed)',
    'transfer.from': "the sender is the event's wallet (chain_ledger.wallet), the same value by construction",
    // A watermark's statement: the stream's example is a fill, which chain_contiguous does not accept
    // (test/chain/coverage.int.test.ts and test/api/coverage.int.test.ts carry it to the responses).
    'coverage.from_block': 'on watermarks only: chain_contiguous.from_block',
    'coverage.from_time_ms': 'on watermarks only: chain_contiguous.from_time',
    'coverage.history_start_block': 'on watermarks only: chain_contiguous.history_start_block',
  },
  'gamma.event.upserted.v1': { event_id: DERIVED_ID },
  'holder.snapshot.v1': { event_id: DERIVED_ID },
  'market.lifecycle.v1': { event_id: DERIVED_ID },
  'market.resolved.v1': { event_id: DERIVED_ID },
  'market.upserted.v1': { event_id: DERIVED_ID },
  'open-interest.v1': { event_id: DERIVED_ID },
  'position.snapshot.v1': { event_id: DERIVED_ID },
  'series.upserted.v1': { event_id: DERIVED_ID },
  'tag.upserted.v1': { event_id: DERIVED_ID },
};

type AvroType = unknown;
interface AvroField {
  name: string;
  type: AvroType;
  'x-symbols'?: string[];
}
interface AvroRecord {
  type: 'record';
  name: string;
  fields: AvroField[];
}
type Path = Array<string | number>;

/** A schema with its named types, so a reference by name ("BookLevel") resolves to its definition. */
class Schema {
  private readonly named = new Map<string, AvroType>();
  constructor(readonly root: AvroRecord) {
    this.collect(root);
  }

  private collect(type: AvroType): void {
    if (Array.isArray(type)) {
      for (const branch of type) this.collect(branch);
      return;
    }
    if (typeof type !== 'object' || type === null) return;
    const t = type as { type: string; name?: string; fields?: AvroField[]; items?: AvroType; values?: AvroType };
    if (t.name && (t.type === 'record' || t.type === 'enum' || t.type === 'fixed')) this.named.set(t.name, t);
    for (const field of t.fields ?? []) this.collect(field.type);
    if (t.items) this.collect(t.items);
    if (t.values) this.collect(t.values);
  }

  resolve(type: AvroType): AvroType {
    return typeof type === 'string' && this.named.has(type) ? this.resolve(this.named.get(type)) : type;
  }

  /** The record type a value of `type` may hold (directly or as the non-null branch of a union), if any. */
  recordOf(type: AvroType): AvroRecord | null {
    const t = this.resolve(type);
    if (Array.isArray(t)) {
      const records = t.map((b) => this.recordOf(b)).filter((r): r is AvroRecord => r !== null);
      return records.length === 1 ? records[0]! : null;
    }
    return typeof t === 'object' && t !== null && (t as AvroRecord).type === 'record' ? (t as AvroRecord) : null;
  }

  itemsOf(type: AvroType): AvroType | null {
    const t = this.resolve(type);
    if (Array.isArray(t)) {
      const arrays = t.map((b) => this.itemsOf(b)).filter((i) => i !== null);
      return arrays.length === 1 ? arrays[0] : null;
    }
    return typeof t === 'object' && t !== null && (t as { type: string }).type === 'array' ? (t as { items: AvroType }).items : null;
  }

  /** A valid value of the type (defaults aside): what an absent optional record or an empty array is filled with. */
  sample(type: AvroType, symbols?: string[]): unknown {
    if (symbols) return symbols[0];
    const t = this.resolve(type);
    if (Array.isArray(t)) {
      const branch = t.find((b) => b !== 'null');
      return this.sample(branch);
    }
    if (typeof t === 'string') return primitiveSample(t);
    const complex = t as { type: string; symbols?: string[]; items?: AvroType; fields?: AvroField[]; logicalType?: string };
    switch (complex.type) {
      case 'enum':
        return complex.symbols![0];
      case 'array':
        return [this.sample(complex.items)];
      case 'record':
        return Object.fromEntries(complex.fields!.map((f) => [f.name, this.sample(f.type, f['x-symbols'])]));
      default:
        return primitiveSample(complex.type);
    }
  }

  /** A valid value of the type different from `value`. */
  perturb(type: AvroType, value: unknown, symbols?: string[]): unknown {
    if (symbols) return symbols[(symbols.indexOf(String(value)) + 1) % symbols.length];
    const t = this.resolve(type);
    if (Array.isArray(t)) return value === null ? this.sample(t) : null;
    if (typeof t === 'string') return perturbPrimitive(t, value);
    const complex = t as { type: string; symbols?: string[]; items?: AvroType };
    switch (complex.type) {
      case 'enum': {
        const symbols = complex.symbols!;
        return symbols[(symbols.indexOf(String(value)) + 1) % symbols.length];
      }
      case 'array': {
        const items = value as unknown[];
        return items.length === 0 ? [this.sample(complex.items)] : [...items, this.perturb(complex.items, items.at(-1))];
      }
      default:
        return perturbPrimitive(complex.type, value);
    }
  }
}

function primitiveSample(type: string): unknown {
  switch (type) {
    case 'string':
      return '1';
    case 'int':
    case 'long':
      return 1;
    case 'float':
    case 'double':
      return 0.5;
    case 'boolean':
      return false;
    default:
      throw new Error(`no sample for Avro type ${type}: teach this test the type`);
  }
}

function perturbPrimitive(type: string, value: unknown): unknown {
  switch (type) {
    case 'string': {
      const s = value as string;
      // Decimal and hex strings stay decimal and hex: a mapper may parse them.
      if (/^\d+$/.test(s)) return (BigInt(s) + 1n).toString();
      if (/^0x[0-9a-f]+$/i.test(s)) return `${s.slice(0, -1)}${s.endsWith('0') ? '1' : '0'}`;
      return `${s}x`;
    }
    case 'int':
    case 'long':
      return (value as number) + 1;
    case 'float':
    case 'double':
      return (value as number) + 0.125;
    case 'boolean':
      return !value;
    default:
      throw new Error(`cannot change a value of Avro type ${type}: teach this test the type`);
  }
}

/** A step on the way to a leaf that must hold a value for the leaf to exist: an optional record, an array of records. */
type Step =
  | { kind: 'record'; parent: Path; field: string; record: AvroRecord; siblings: string[] }
  | { kind: 'array'; path: Path; items: AvroType };

interface Leaf {
  path: Path;
  type: AvroType;
  symbols?: string[];
  through: Step[];
}

/**
 * Every field that holds a value rather than a record: `fill.price`, `bids[].size`. A record's
 * optional sub-records are alternatives (a chain ledger event carries its fill, its position change,
 * its conversion or its transfer), so a leaf under one is checked with that one present and the
 * others null.
 */
function leaves(schema: Schema, record: AvroRecord, prefix: Path = [], through: Step[] = []): Leaf[] {
  const optionalRecords = record.fields
    .filter((f) => Array.isArray(schema.resolve(f.type)) && schema.recordOf(f.type) !== null)
    .map((f) => f.name);
  return record.fields.flatMap((field): Leaf[] => {
    const path = [...prefix, field.name];
    const sub = schema.recordOf(field.type);
    if (sub) {
      const siblings = Array.isArray(schema.resolve(field.type)) ? optionalRecords.filter((name) => name !== field.name) : [];
      return leaves(schema, sub, path, [...through, { kind: 'record', parent: prefix, field: field.name, record: sub, siblings }]);
    }
    const items = schema.itemsOf(field.type);
    const itemRecord = items === null ? null : schema.recordOf(items);
    if (itemRecord) return leaves(schema, itemRecord, [...path, 0], [...through, { kind: 'array', path, items }]);
    return [{ path, type: field.type, symbols: field['x-symbols'], through }];
  });
}

function at(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, key) => (v as Record<string | number, unknown>)[key], value);
}

function withValue(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [key, ...rest] = path as [string | number, ...Path];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[key] = withValue(copy[key], rest, replacement);
  return copy;
}

/** The example with every optional record and array of records on the way to the leaf holding a value. */
function baseFor(schema: Schema, example: unknown, leaf: Leaf): unknown {
  let value = example;
  for (const step of leaf.through) {
    if (step.kind === 'record') {
      for (const sibling of step.siblings) value = withValue(value, [...step.parent, sibling], null);
      const path = [...step.parent, step.field];
      if (at(value, path) === null) value = withValue(value, path, schema.sample(step.record));
    } else if ((at(value, step.path) as unknown[]).length === 0) {
      value = withValue(value, step.path, [schema.sample(step.items)]);
    }
  }
  return value;
}

function rowsOf(stream: Stream, event: unknown): Array<{ table: string; row: Record<string, unknown> }> {
  return ALL_PROJECTIONS.filter((p) => p.stream === stream && !p.apply && (p.accepts?.(event) ?? true)).map((p) => ({
    table: p.table,
    row: p.row(event, { partition: 0, offset: 0 }),
  }));
}

/** The columns whose values differ between two sets of rows of the same projections. */
function changedColumns(before: ReturnType<typeof rowsOf>, after: ReturnType<typeof rowsOf>): string[] {
  const changed = new Set<string>();
  const tables = new Set([...before, ...after].map((r) => r.table));
  for (const table of tables) {
    const a = before.find((r) => r.table === table)?.row;
    const b = after.find((r) => r.table === table)?.row;
    // A row that appears or disappears (a projection's `accepts` turned) changes every column it has.
    for (const column of new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])) {
      if (!a || !b || !isDeepStrictEqual(a[column], b[column])) changed.add(`${table}.${column}`);
    }
  }
  return [...changed];
}

const label = (path: Path) =>
  path
    .map((k) => (k === 0 ? '[]' : `.${k}`))
    .join('')
    .replace(/^\./, '')
    .replace(/\.\[\]/g, '[]');

const schemaFiles = fs
  .readdirSync(SCHEMA_DIRECTORY)
  .filter((f) => f.endsWith('.avsc'))
  .map((f) => f.replace(/\.avsc$/, ''))
  .sort();
const storedSchemas = schemaFiles.filter((name) => !(name in NOT_STORED));

test('every schema feeds a table through a row projection, or says why it is not stored', () => {
  const projected = new Set(ALL_PROJECTIONS.filter((p) => !p.apply).map((p) => p.stream.schema as string));
  expect(schemaFiles.filter((name) => !projected.has(name) && !(name in NOT_STORED))).toEqual([]);
  expect(Object.keys(NOT_STORED).filter((name) => projected.has(name) || !schemaFiles.includes(name))).toEqual([]);
});

describe.each(storedSchemas)('schema %s', (schemaName) => {
  const schema = new Schema(readSchema(schemaName) as unknown as AvroRecord);
  const streams = ALL_STREAMS.filter((s) => s.schema === schemaName);

  test('each field changes a column of the rows its stream writes, or is listed with where it goes instead', () => {
    const unreached: string[] = [];
    for (const leaf of leaves(schema, schema.root)) {
      const reached = streams.some((stream) => {
        const base = baseFor(schema, EXAMPLES[stream.name as StreamName](), leaf);
        const changed = withValue(base, leaf.path, schema.perturb(leaf.type, at(base, leaf.path), leaf.symbols));
        // Both events must be ones a producer could publish, or the comparison proves nothing.
        expect([stream.codec.violation(base), stream.codec.violation(changed)]).toEqual([null, null]);
        return changedColumns(rowsOf(stream, base), rowsOf(stream, changed)).length > 0;
      });
      if (!reached) unreached.push(label(leaf.path));
    }
    const tables = [...new Set(ALL_PROJECTIONS.filter((p) => streams.includes(p.stream) && !p.apply).map((p) => p.table))].join(', ');
    const say = (field: string) => `${schemaName} field ${field} reaches no column of ${tables}`;
    expect(unreached.sort().map(say)).toEqual(
      Object.keys(NOT_A_COLUMN[schemaName] ?? {})
        .sort()
        .map(say),
    );
  });
});

test('the allow-list names only schemas that exist', () => {
  expect(Object.keys(NOT_A_COLUMN).filter((name) => !storedSchemas.includes(name))).toEqual([]);
});
