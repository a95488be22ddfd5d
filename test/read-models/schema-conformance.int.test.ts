/**
 * For every stream in the registry: its TypeScript example, its Avro schema and the ClickHouse columns
 * of every table it is projected into agree. A field the schema does not declare, a row key that names
 * no column, or a column no mapper fills fails here (and in production the insert itself refuses
 * unknown keys).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { SCHEMA_DIRECTORY } from '../../services/events/avro.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { ALL_PROJECTIONS, ALL_STREAMS, READ_MODELS, STREAMS, type StreamName } from '../../services/read-models/registry.js';
import * as build from '../support/events.js';

const { EXAMPLES } = build;

let store: AnalyticsStore;

beforeAll(async () => {
  store = await openChdbStore({ path: fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-conformance-')), database: 'conformance' });
  await migrate(store);
});
afterAll(() => store.close());

describe.each(ALL_STREAMS.map((stream) => [stream.name, stream] as const))('stream %s', (name, stream) => {
  const example = () => EXAMPLES[name as StreamName]() as unknown;

  test('its example fits the Avro schema exactly and survives a round trip', () => {
    expect(stream.codec.violation(example())).toBeNull();
    expect(stream.codec.decode(stream.codec.encode(example()))).toEqual(example());
  });

  test('a field the schema does not declare is refused, not dropped', () => {
    expect(stream.codec.violation({ ...(example() as object), misspelled_field: 1 })).toMatch(/misspelled_field/);
  });

  test('its declared key and time are defined for the example', () => {
    expect(typeof stream.key(example())).toBe('string');
    expect(Number.isFinite(stream.time(example()))).toBe(true);
  });

  // Projections that write their table themselves (the position ledger) have no row per event to check.
  const projections = ALL_PROJECTIONS.filter((p) => p.stream === stream && !p.apply);
  if (projections.length === 0) return;
  test.each(projections.map((p) => [p.table, p] as const))(
    'its row for %s names exactly the table columns and inserts',
    async (table, projection) => {
      const columns = await store.query<{ name: string }>(
        `SELECT name FROM system.columns WHERE database = {db:String} AND table = {table:String} AND default_kind NOT IN ('MATERIALIZED', 'ALIAS') ORDER BY name`,
        { db: store.database, table },
      );
      const row = projection.row(example(), { partition: 3, offset: 41 });
      expect(Object.keys(row).sort()).toEqual(columns.map((c) => c.name));
      await store.insert(table, [row]);
    },
  );
});

test('every schema file belongs to a stream, and topics are unique', () => {
  const files = fs
    .readdirSync(SCHEMA_DIRECTORY)
    .filter((f) => f.endsWith('.avsc'))
    .map((f) => f.replace(/\.avsc$/, ''))
    .sort();
  expect([...new Set(ALL_STREAMS.map((s) => s.schema))].sort()).toEqual(files);
  expect(new Set(ALL_STREAMS.map((s) => s.topic)).size).toBe(ALL_STREAMS.length);
  expect(new Set(READ_MODELS.map((m) => m.name)).size).toBe(READ_MODELS.length);
});

test('an insert with a key that names no column fails (input_format_skip_unknown_fields is pinned off)', async () => {
  const row = { ...STREAMS.openInterest.codec.decode(STREAMS.openInterest.codec.encode(build.openInterest())) } as Record<string, unknown>;
  const good = ALL_PROJECTIONS.find((p) => p.table === 'open_interest')!.row(row as never, { partition: 0, offset: 0 });
  await expect(store.insert('open_interest', [{ ...good, open_interest_usd: 1 }])).rejects.toThrow();
});
