/**
 * The API document's Conventions (api/openapi.yaml info.description), checked over every schema a
 * client receives: each operation's responses, each webhook payload and every component schema a
 * response or payload reaches. A money, share or price field is a number; the only strings among
 * them are exact integers named `*_micro` / `*_base_units` and decimals marked `x-exact-decimal`
 * (token amounts finer than a JSON number holds).
 */
import fs from 'node:fs';
import { parse } from 'yaml';

type Schema = Record<string, unknown>;
interface Finding {
  where: string;
  field: string;
  types: string[];
}

const document = parse(fs.readFileSync(new URL('../../api/openapi.yaml', import.meta.url), 'utf8')) as Schema;
const components = (document.components as { schemas: Record<string, Schema> }).schemas;

/** A field named for money, shares, a price or a size (ids, assets, timestamps and schedules are not amounts). */
const AMOUNT_WORDS = new Set(
  'usdc price prices size shares amount pnl cash equity notional fee fees cost proceeds payout balance ratio rate volume'.split(' '),
);
const NOT_AMOUNT = /(_id|_ids|_at|_as_of|_asset|_basis|_schedule|_hint|_type|_bps|_count|_pct|_index|_threshold|_key)$/;
const isAmount = (field: string) => field.split('_').some((word) => AMOUNT_WORDS.has(word)) && !NOT_AMOUNT.test(field);
const EXACT_INTEGER_TEXT = /_(micro|base_units)$/;

const refName = (ref: string) => ref.replace('#/components/schemas/', '');

/** The type names a schema can take, through allOf / oneOf / anyOf and $ref. */
function typesOf(schema: Schema, seen = new Set<string>()): string[] {
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    if (seen.has(name)) return [];
    seen.add(name);
    return typesOf(components[name]!, seen);
  }
  const own = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const composed = (['allOf', 'oneOf', 'anyOf'] as const).flatMap((k) =>
    ((schema[k] as Schema[] | undefined) ?? []).flatMap((s) => typesOf(s, seen)),
  );
  return [...new Set([...own, ...composed])];
}

const exactDecimal = (schema: Schema): boolean =>
  schema['x-exact-decimal'] === true ||
  (['allOf', 'oneOf', 'anyOf'] as const).some((k) => ((schema[k] as Schema[] | undefined) ?? []).some(exactDecimal));

/** Walks a schema, collecting amount fields that can be strings; `visit` gets every component reached. */
function walk(schema: unknown, where: string, findings: Finding[], visit: (name: string) => void): void {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Schema;
  if (typeof s.$ref === 'string') {
    visit(refName(s.$ref));
    return;
  }
  for (const [field, property] of Object.entries((s.properties as Record<string, Schema> | undefined) ?? {})) {
    const types = typesOf(property);
    if (isAmount(field) && types.includes('string') && !EXACT_INTEGER_TEXT.test(field) && !exactDecimal(property))
      findings.push({ where, field, types });
    walk(property, `${where}.${field}`, findings, visit);
  }
  for (const key of ['items', 'additionalProperties', 'allOf', 'oneOf', 'anyOf']) {
    const child = s[key];
    if (Array.isArray(child)) for (const [i, c] of child.entries()) walk(c, `${where}.${key}[${i}]`, findings, visit);
    else walk(child, `${where}.${key}`, findings, visit);
  }
}

/** Every schema a client receives, with the amount fields among them that can be strings. */
function servedSchemas(): { walked: string[]; findings: Finding[] } {
  const findings: Finding[] = [];
  const walked: string[] = [];
  const queue: string[] = [];
  const visited = new Set<string>();
  const visit = (name: string) => {
    if (!visited.has(name)) {
      visited.add(name);
      queue.push(name);
    }
  };
  const responses = (document.components as { responses?: Record<string, Schema> }).responses ?? {};
  const contentSchemas = (holder: unknown): unknown[] =>
    Object.values(((holder as Schema | undefined)?.content as Record<string, Schema> | undefined) ?? {}).map((c) => c.schema);
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries((operation.responses as Record<string, Schema> | undefined) ?? {})) {
        const resolved = typeof response.$ref === 'string' ? responses[response.$ref.split('/').pop()!] : response;
        for (const schema of contentSchemas(resolved)) {
          walked.push(`${method.toUpperCase()} ${path} ${status}`);
          walk(schema, `${method.toUpperCase()} ${path} ${status}`, findings, visit);
        }
      }
    }
  }
  for (const [name, item] of Object.entries((document.webhooks as Record<string, Record<string, Schema>> | undefined) ?? {})) {
    for (const operation of Object.values(item))
      for (const schema of contentSchemas(operation.requestBody)) {
        walked.push(`webhook ${name}`);
        walk(schema, `webhook ${name}`, findings, visit);
      }
  }
  while (queue.length > 0) {
    const name = queue.shift()!;
    walked.push(name);
    walk(components[name], name, findings, visit);
  }
  return { walked, findings };
}

test('no money, share or price field a client receives is a string, save exact integers and marked exact decimals', () => {
  const { walked, findings } = servedSchemas();
  // The walk reaches what the conventions cover: paper, fees, copy, backtests, picks, market data and webhooks.
  for (const name of [
    'PaperOrder',
    'PaperAccount',
    'Fee',
    'CopyIntent',
    'CopySubscription',
    'BacktestResult',
    'CopyPick',
    'Market',
    'Trade',
  ])
    expect(walked).toContain(name);
  expect(walked.some((w) => w.startsWith('webhook '))).toBe(true);
  expect(findings).toEqual([]);
});

test('the walk finds a money field typed as a string, inline or behind a reference', () => {
  const findings: Finding[] = [];
  const inline = {
    type: 'object',
    properties: { cash_usdc: { type: 'string' }, fee_id: { type: 'string' }, size_usdc_micro: { type: 'string' } },
  };
  walk(inline, 'inline', findings, () => {});
  const wrapped = {
    type: 'object',
    properties: { nested: { type: 'object', properties: { avg_price: { oneOf: [{ type: 'string' }, { type: 'null' }] } } } },
  };
  walk(wrapped, 'wrapped', findings, () => {});
  expect(findings).toEqual([
    { where: 'inline', field: 'cash_usdc', types: ['string'] },
    { where: 'wrapped.nested', field: 'avg_price', types: ['string', 'null'] },
  ]);
  expect(typesOf({ allOf: [{ $ref: '#/components/schemas/Usdc' }] })).toEqual(['number']);
});

test('the Conventions open the API document and name the id types', () => {
  const description = (document.info as { description: string }).description;
  expect(description.startsWith('**Conventions.**')).toBe(true);
  expect(description).toMatch(/copy subscriptions .*integers/s);
  expect(description).not.toMatch(/Ids are strings\./);
});
