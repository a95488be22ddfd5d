/**
 * The API document (api/openapi.yaml) read once for every generator: component schemas and the
 * operations, each with its parameters resolved ($ref followed, path-level ones merged), its JSON
 * request body and the `data` schema of its success envelope. Clients in every language are
 * generated from this one reading, so they cannot drift from the document the service validates with.
 */
import fs from 'node:fs';
import { parse } from 'yaml';

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  allOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  description?: string;
  [keyword: string]: unknown;
};

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  /** An event stream's filter that only some channels take: those channels (`x-channels`). */
  channels?: string[];
}

/** A parameter as the document writes it. */
type RawParameter = Omit<Parameter, 'channels'> & { 'x-channels'?: unknown };

export interface Operation {
  /** The document's operationId (required: the SDK method and MCP names). */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template relative to the server URL (`/markets/{id}`). */
  path: string;
  summary: string;
  description?: string;
  access?: string;
  parameters: Parameter[];
  /** The JSON request body schema, when the operation takes one. */
  body?: { schema: JsonSchema; required: boolean };
  /** Schema of the success envelope's `data`. */
  data: JsonSchema;
  /** True for list responses (`ListSuccess`: data is an array and `pagination` carries the cursor). */
  paginated: boolean;
  /**
   * True when the success response is a file, not the JSON envelope: every media type it declares is
   * `type: string, format: binary` (an export file). The SDKs hand back its bytes.
   */
  binary: boolean;
  successStatus: number;
}

/** An event-stream operation (Server-Sent Events): no SDK method, but its parameters for the stream helpers and tools. */
type StreamOperation = Pick<Operation, 'id' | 'path' | 'summary' | 'description' | 'access' | 'parameters'>;

export interface ApiDocument {
  version: string;
  schemas: Record<string, JsonSchema>;
  operations: Operation[];
  streams: StreamOperation[];
  /** Webhook delivery bodies by event type (the document's top-level `webhooks`). */
  webhooks: Array<{ event: string; schema: JsonSchema }>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The parsed YAML, untyped until each member is read into the shapes above. */
// biome-ignore lint/suspicious/noExplicitAny: a parsed document is untyped; every read below narrows it
type Yaml = any;

export function readApiDocument(file: string): ApiDocument {
  const document = parse(fs.readFileSync(file, 'utf8')) as Record<string, Yaml>;
  const components = document.components ?? {};
  const deref = <T>(value: Yaml): T => {
    if (value && typeof value.$ref === 'string') {
      const [, section, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(value.$ref) ?? [];
      const target = section && name ? components[section]?.[name] : undefined;
      if (!target) throw new Error(`unresolvable $ref ${value.$ref}`);
      return deref<T>(target);
    }
    return value as T;
  };

  const operations: Operation[] = [];
  const streams: StreamOperation[] = [];
  for (const [path, item] of Object.entries<Record<string, Yaml>>(document.paths ?? {})) {
    const shared: RawParameter[] = (item.parameters ?? []).map((p: unknown) => deref<RawParameter>(p));
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const own: RawParameter[] = (op.parameters ?? []).map((p: unknown) => deref<RawParameter>(p));
      const parameters: Parameter[] = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own].map((p) => ({
        name: p.name,
        in: p.in,
        required: p.in === 'path' ? true : Boolean(p.required),
        ...(p.description ? { description: String(p.description).trim() } : {}),
        schema: p.schema ?? {},
        ...(Array.isArray(p['x-channels']) ? { channels: p['x-channels'].map(String) } : {}),
      }));
      const body = op.requestBody ? deref<Record<string, Yaml>>(op.requestBody) : undefined;
      const bodySchema = body?.content?.['application/json']?.schema as JsonSchema | undefined;
      const [status, response] = Object.entries<Yaml>(op.responses ?? {}).find(([code]) => /^2\d\d$/.test(code)) ?? [];
      // A stream (an event stream, a protocol switch) is no request/response call: the SDKs get no
      // method for it (their stream helpers read it; docs/STREAMING.md). An event stream's parameters
      // are kept for those helpers and the MCP server's bounded watch tool.
      if (op.responses?.['101']) continue;
      if (deref<Yaml>(response ?? {}).content?.['text/event-stream']) {
        streams.push({
          id: String(op.operationId),
          path,
          summary: String(op.summary ?? '').trim(),
          ...(op.description ? { description: String(op.description).trim() } : {}),
          ...(op['x-access'] ? { access: String(op['x-access']) } : {}),
          parameters,
        });
        continue;
      }
      const content = Object.values<Yaml>(deref<Yaml>(response ?? {}).content ?? {});
      const binary = content.length > 0 && content.every((media) => media?.schema?.type === 'string' && media.schema.format === 'binary');
      const envelope = binary
        ? undefined
        : deref<JsonSchema | undefined>(response ? deref<Yaml>(response).content?.['application/json']?.schema : undefined);
      // The SDK method and MCP names come from it; a name derived from the path reads badly
      // (postPaperOrdersByOrderIdCancel), so every operation names itself.
      if (typeof op.operationId !== 'string' || op.operationId === '')
        throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      operations.push({
        id: op.operationId,
        method: method.toUpperCase() as Operation['method'],
        path,
        summary: String(op.summary ?? '').trim(),
        ...(op.description ? { description: String(op.description).trim() } : {}),
        ...(op['x-access'] ? { access: String(op['x-access']) } : {}),
        parameters,
        ...(bodySchema ? { body: { schema: bodySchema, required: Boolean(body?.required) } } : {}),
        data: envelope ? dataSchema(envelope) : {},
        paginated: envelope ? isList(envelope) : false,
        binary,
        successStatus: Number(status ?? 200),
      });
    }
  }
  const ids = operations.map((op) => op.id);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate) throw new Error(`operationId ${duplicate} is used twice`);

  const webhooks = Object.entries<Yaml>(document.webhooks ?? {}).map(([event, item]) => ({
    event,
    schema: item.post?.requestBody?.content?.['application/json']?.schema ?? {},
  }));
  return { version: String(document.info?.version ?? ''), schemas: components.schemas ?? {}, operations, streams, webhooks };
}

/** The `data` member of a success envelope: `allOf: [Success | ListSuccess, {properties: {data: X}}]`. */
function dataSchema(envelope: JsonSchema): JsonSchema {
  for (const part of envelope.allOf ?? [envelope]) {
    const data = part.properties?.data;
    if (data) return data;
  }
  return {};
}

function isList(envelope: JsonSchema): boolean {
  return (envelope.allOf ?? [envelope]).some(
    (part) => part.$ref === '#/components/schemas/ListSuccess' || Boolean(part.properties?.pagination),
  );
}

/** A copy of `schema` with every component $ref replaced by its target (for consumers that take self-contained JSON Schema). */
export function inlineRefs(schema: JsonSchema, schemas: Record<string, JsonSchema>, depth = 0): JsonSchema {
  if (depth > 32) throw new Error('schema nesting too deep (a recursive $ref?)');
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, schemas, depth + 1)) as unknown as JsonSchema;
  if (!schema || typeof schema !== 'object') return schema;
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = schemas[name];
    if (!target) throw new Error(`unresolvable $ref ${schema.$ref}`);
    const { $ref: _ref, ...siblings } = schema;
    return { ...inlineRefs(target, schemas, depth + 1), ...siblings };
  }
  return Object.fromEntries(
    Object.entries(schema).map(([keyword, value]) => [
      keyword,
      value && typeof value === 'object' ? inlineRefs(value as JsonSchema, schemas, depth + 1) : value,
    ]),
  ) as JsonSchema;
}
