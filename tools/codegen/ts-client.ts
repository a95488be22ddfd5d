/**
 * The TypeScript SDK's generated half (clients/ts/src/api.generated.ts): the component types, one
 * entry per operation in `Operations` (flattened parameters - path, query and JSON body members in
 * one object - the `data` type and whether it pages) and the runtime table `OPERATIONS` (method,
 * path, parameters with self-contained JSON Schemas) that the SDK and the MCP tool server read.
 *
 * Why our own generator rather than openapi-typescript or @hey-api/openapi-ts: both build their
 * output through the `typescript` package's JavaScript API, which TypeScript 7 (native) no longer
 * ships, so they cannot run in this repository; the document uses a small JSON Schema subset that
 * tools/codegen/openapi-types.ts already maps.
 */
import { type ApiDocument, inlineRefs, type JsonSchema, type Operation } from './openapi-document.js';
import { componentTypes, tsType } from './openapi-types.js';

const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));
const comment = (text: string, indent: string) =>
  text ? `${indent}/** ${text.replace(/\s*\n\s*/g, ' ').replace(/\*\//g, '*\\/')} */\n` : '';

/** Body members merged into the flattened parameters (a body that is not an object is passed as `body`). */
export function bodyMembers(
  op: Operation,
  schemas: Record<string, JsonSchema>,
): Array<{ name: string; required: boolean; schema: JsonSchema }> {
  if (!op.body) return [];
  const schema = inlineRefs(op.body.schema, schemas);
  if (!schema.properties) return [{ name: 'body', required: op.body.required, schema: op.body.schema }];
  const required = new Set(schema.required ?? []);
  const raw = op.body.schema.$ref ? schemas[op.body.schema.$ref.replace('#/components/schemas/', '')]! : op.body.schema;
  return Object.keys(schema.properties).map((name) => ({
    name,
    required: op.body!.required && required.has(name),
    // Keep the document's $refs in the TS type (named types read better than their expansion).
    schema: raw.properties?.[name] ?? schema.properties![name]!,
  }));
}

/** `Trade` list -> "a list of Trade: trade_id, market_id, ..."; fields of allOf parts included. */
function returnsOf(data: JsonSchema, schemas: Record<string, JsonSchema>): string {
  const list = data.type === 'array' && data.items !== undefined;
  const item = (list ? data.items : data) as JsonSchema;
  const name = typeof item.$ref === 'string' ? item.$ref.split('/').at(-1)! : undefined;
  const fields = new Set<string>();
  const collect = (schema: JsonSchema | undefined, depth: number): void => {
    if (!schema || depth > 4) return;
    if (typeof schema.$ref === 'string') {
      collect(schemas[schema.$ref.split('/').at(-1)!], depth + 1);
      return;
    }
    for (const part of schema.allOf ?? []) collect(part, depth + 1);
    for (const field of Object.keys(schema.properties ?? {})) fields.add(field);
  };
  collect(item, 0);
  const what = name ?? (fields.size > 0 ? 'an object' : 'a value');
  const head = list ? `a list of ${name ?? 'objects'}` : what;
  return fields.size > 0 ? `${head}: ${[...fields].join(', ')}` : head;
}

function paramsType(op: Operation, schemas: Record<string, JsonSchema>): { type: string; optional: boolean } {
  const members = [
    ...op.parameters.filter((p) => p.in !== 'header').map((p) => ({ ...p, docText: p.description ?? '' })),
    ...bodyMembers(op, schemas).map((m) => ({ ...m, docText: m.schema.description ?? '' })),
  ];
  const seen = new Set<string>();
  for (const member of members) {
    if (seen.has(member.name))
      throw new Error(`${op.id}: parameter ${member.name} appears twice (path, query and body share one namespace)`);
    seen.add(member.name);
  }
  if (members.length === 0) return { type: 'Record<string, never>', optional: true };
  const lines = members.map(
    (m) => `${comment(m.docText, '      ')}      ${key(m.name)}${m.required ? '' : '?'}: ${tsType(m.schema, '      ')};\n`,
  );
  return { type: `{\n${lines.join('')}    }`, optional: members.every((m) => !m.required) };
}

export function tsClientModule(api: ApiDocument, header: string): string {
  const { schemas, operations } = api;
  const entries = operations.map((op) => {
    const params = paramsType(op, schemas);
    // A file operation answers with the file, not the envelope: the caller gets the unread Response (its body streams).
    const data = op.binary ? 'Response' : tsType(op.data, '    ');
    return `${comment(`${op.method} ${op.path}: ${op.summary}`, '  ')}  ${op.id}: {\n    params: ${params.type};\n    paramsOptional: ${params.optional};\n    data: ${data};\n    paginated: ${op.paginated};\n  };\n`;
  });
  const table = Object.fromEntries(
    operations.map((op) => [
      op.id,
      {
        method: op.method,
        path: op.path,
        summary: op.summary,
        ...(op.description ? { description: op.description } : {}),
        ...(op.access ? { access: op.access } : {}),
        paginated: op.paginated,
        ...(op.binary ? { binary: true } : {}),
        returns: op.binary ? 'a file (its bytes, not JSON)' : returnsOf(op.data, schemas),
        parameters: op.parameters.map((p) => ({ ...p, schema: inlineRefs(p.schema, schemas) })),
        body: bodyMembers(op, schemas).map((m) => m.name),
      },
    ]),
  );
  const streams = Object.fromEntries(
    api.streams.map((op) => [
      op.id,
      {
        path: op.path,
        summary: op.summary,
        ...(op.access ? { access: op.access } : {}),
        parameters: op.parameters.map((p) => ({ ...p, schema: inlineRefs(p.schema, schemas) })),
      },
    ]),
  );
  const events = api.webhooks.map((hook) => `  ${JSON.stringify(hook.event)}: ${tsType(hook.schema, '  ')};\n`).join('');
  return `${header}
${componentTypes(schemas)}
/** Every operation of the API document: flattened parameters, the success envelope's \`data\`, and whether it pages. */
export interface Operations {
${entries.join('')}}

export type OperationId = keyof Operations;

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  /** Self-contained JSON Schema (component references inlined). */
  schema: Record<string, unknown>;
  /** An event stream's filter that only some channels take: those channels. */
  channels?: string[];
}

export interface OperationSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  summary: string;
  description?: string;
  /** The document's x-access: any, tier1, tier2, tier3 or sandbox. */
  access?: string;
  paginated: boolean;
  /** The answer is a file (an export's), not the JSON envelope: \`request\` returns the unread Response. */
  binary?: boolean;
  /** What \`data\` holds, in words: the schema's name and its top-level fields (MCP tool descriptions). */
  returns: string;
  parameters: ParameterSpec[];
  /** Names of the flattened parameters that travel in the JSON body. */
  body: string[];
}

export const API_VERSION = ${JSON.stringify(api.version)};

export const OPERATIONS: { readonly [K in OperationId]: OperationSpec } = ${JSON.stringify(table, null, 2)};

/** An event-stream operation (GET, Server-Sent Events): read by the stream helpers, not called as a method. */
export interface StreamSpec {
  path: string;
  summary: string;
  access?: string;
  parameters: ParameterSpec[];
}

export const STREAMS: { readonly [id: string]: StreamSpec } = ${JSON.stringify(streams, null, 2)};

/** Webhook delivery bodies by event type. */
export interface WebhookEvents {
${events}}
`;
}
