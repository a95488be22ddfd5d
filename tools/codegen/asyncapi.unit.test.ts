/** The AsyncAPI generator copies the stream schemas only where AsyncAPI reads them as OpenAPI means them. */
import fs from 'node:fs';
import { parse } from 'yaml';
import { asyncapiDocument, referencedSchemas } from './asyncapi.js';

const openapi = () => parse(fs.readFileSync(new URL('../../api/openapi.yaml', import.meta.url), 'utf8'));

test('the message schemas are copied verbatim, with every schema they reference and nothing else', () => {
  const source = openapi();
  const generated = parse(asyncapiDocument(source, '# header'));
  for (const [name, schema] of Object.entries(generated.components.schemas))
    expect([name, schema]).toEqual([name, source.components.schemas[name]]);
  expect(generated.components.schemas.Trade).toBeDefined();
  expect(generated.components.schemas.Market).toBeUndefined();
});

test('a key that is not a draft-07 keyword stops generation, naming where (an unquoted comma in a YAML flow mapping makes one)', () => {
  const source = openapi();
  source.components.schemas.TradeEventFields.properties.wallet = parse('{ type: string, description: Taker wallet, lower-case. }');
  expect(() => asyncapiDocument(source, '')).toThrow(
    '#/components/schemas/TradeEventFields/properties/wallet uses "lower-case.", not a JSON Schema draft-07 keyword',
  );
});

test('a draft 2020-12 keyword whose meaning draft-07 lacks stops generation', () => {
  const source = openapi();
  source.components.schemas.StreamCursor.prefixItems = [{ type: 'string' }];
  expect(() => asyncapiDocument(source, '')).toThrow('#/components/schemas/StreamCursor uses "prefixItems"');
});

test('a missing stream operation is named', () => {
  const source = openapi();
  delete source.paths['/stream'];
  expect(() => asyncapiDocument(source, '')).toThrow('api/openapi.yaml has no GET operation streamSocket');
});

test('every schema of api/openapi.yaml, streamed or not, uses JSON Schema keywords only (no description cut short into a stray key)', () => {
  const schemas = openapi().components.schemas;
  const all = Object.keys(schemas).map((name) => ({ $ref: `#/components/schemas/${name}` }));
  expect(Object.keys(referencedSchemas(schemas, all))).toEqual(Object.keys(schemas));
});
