/**
 * The API document's dataset and filter lists are the schema table's (services/exports/schemas.ts),
 * and every dataset's SQL selects exactly its schema's columns in order (built at import: a drift throws).
 */
import fs from 'node:fs';
import { parse } from 'yaml';
import { DATASET } from './datasets.js';
import { DATASET_NAMES, DATASET_SCHEMAS, FILTER_NAMES, parquetTypeOf } from './schemas.js';

type Schema = { properties: Record<string, { enum?: string[]; properties?: Record<string, unknown> }> };
const document = parse(fs.readFileSync(new URL('../../api/openapi.yaml', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};
const { ExportInput, ExportJob } = document.components.schemas;

test('the API document lists exactly the datasets of the schema table', () => {
  expect(ExportInput!.properties.dataset!.enum).toEqual(DATASET_NAMES);
  expect(ExportJob!.properties.dataset!.enum).toEqual(DATASET_NAMES);
  expect(Object.keys(DATASET)).toEqual(DATASET_NAMES);
});

test('the API document lists exactly the filters the datasets take', () => {
  expect(Object.keys(ExportInput!.properties.filters!.properties!)).toEqual([...FILTER_NAMES]);
  expect(Object.keys(ExportJob!.properties.filters!.properties!)).toEqual([...FILTER_NAMES]);
  expect(new Set(DATASET_NAMES.flatMap((name) => DATASET_SCHEMAS[name].filters))).toEqual(new Set(FILTER_NAMES));
});

test('every column has a Parquet type, a unique name, and a dataset with time has its time column', () => {
  for (const name of DATASET_NAMES) {
    const schema = DATASET_SCHEMAS[name];
    const names = schema.columns.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const column of schema.columns) expect(parquetTypeOf(column.type)).toEqual(expect.any(String));
    if (schema.time !== null) {
      expect(names).toContain(schema.time);
      expect(schema.filters).toEqual(expect.arrayContaining(['from', 'to']));
    } else expect(schema.filters).not.toContain('from');
  }
});
