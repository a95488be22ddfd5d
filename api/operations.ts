/**
 * The operations declared in api/openapi.yaml with their rules (x-access, x-metered, x-metering,
 * x-channels, x-cache): the single source for /pricing/access and for which responses the read cache may share. Matching
 * follows Express's routing, which is case-insensitive, so a cache decision can never disagree with
 * the route that answers (`/v1/USAGE` is the private /usage operation, not an unknown URL).
 */
import fs from 'node:fs';
import { parse } from 'yaml';
import type { Access } from '../services/access/tiers.js';

/** shared: the same answer for every caller; private: depends on the caller; none: never reused. */
type CacheMode = 'shared' | 'private' | 'none';

/**
 * What one metered call is: each request (`call`), or, for streams, whose route opts out of per-request
 * metering (`x-metered: false`) and meters each stream itself (`x-metering`), each SSE connection or
 * each WebSocket subscription. Null: not metered.
 */
type MeteredPer = 'call' | 'connection' | 'subscription' | null;

const STREAM_METERING: ReadonlySet<string> = new Set(['connection', 'subscription']);

type ParameterType = 'string' | 'integer' | 'number' | 'boolean';

export interface Operation {
  method: string;
  path: string;
  access: Access | 'public';
  /** Whether the request itself is metered (the access middleware's rule); see meteredPer for streams. */
  metered: boolean;
  meteredPer: MeteredPer;
  /** The stream channels the operation carries (`x-channels`), empty for every other operation. */
  channels: readonly string[];
  cache: CacheMode;
  /** Declared query parameters and their scalar types (the read cache canonicalises queries by them). */
  queryParameters: ReadonlyMap<string, ParameterType>;
  /**
   * The fields of the JSON body's object members by name, where the body itself has no such field
   * (`from` -> `filters.from`): a refusal of `from` at the top can say where it belongs.
   */
  nestedBodyFields: ReadonlyMap<string, string>;
}

interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, SchemaObject>;
}

interface ParameterObject {
  $ref?: string;
  name?: string;
  in?: string;
  schema?: { type?: string | string[] };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function readOperations(openapiPath: string): Operation[] {
  const document = parse(fs.readFileSync(openapiPath, 'utf8')) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components?: { parameters?: Record<string, ParameterObject>; schemas?: Record<string, SchemaObject> };
  };
  const resolve = (parameter: ParameterObject): ParameterObject =>
    parameter.$ref ? (document.components?.parameters?.[parameter.$ref.split('/').pop()!] ?? {}) : parameter;
  const resolveSchema = (schema: SchemaObject | undefined): SchemaObject | undefined =>
    schema?.$ref ? document.components?.schemas?.[schema.$ref.split('/').pop()!] : schema;
  const nestedBodyFields = (operation: Record<string, unknown>): Map<string, string> => {
    const content = (operation.requestBody as { content?: Record<string, { schema?: SchemaObject }> } | undefined)?.content;
    const body = resolveSchema(content?.['application/json']?.schema);
    const nested = new Map<string, string>();
    for (const [member, raw] of Object.entries(body?.properties ?? {})) {
      for (const field of Object.keys(resolveSchema(raw)?.properties ?? {}))
        if (!(field in (body?.properties ?? {})) && !nested.has(field)) nested.set(field, `${member}.${field}`);
    }
    return nested;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const queryParameters = new Map<string, ParameterType>();
      for (const raw of (operation.parameters as ParameterObject[] | undefined) ?? []) {
        const parameter = resolve(raw);
        const type = [parameter.schema?.type].flat().find((t) => t !== 'null');
        if (parameter.in === 'query' && parameter.name) queryParameters.set(parameter.name, (type ?? 'string') as ParameterType);
      }
      const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
      const metered = !isPublic && operation['x-metered'] !== false;
      const streamMetering = operation['x-metering'];
      if (streamMetering !== undefined && !STREAM_METERING.has(String(streamMetering)))
        throw new Error(`${method.toUpperCase()} ${path}: x-metering must be connection or subscription`);
      operations.push({
        method: method.toUpperCase(),
        path: `/v1${path}`,
        access: isPublic ? 'public' : ((operation['x-access'] as Access | undefined) ?? 'tier1'),
        metered,
        meteredPer: metered ? 'call' : isPublic ? null : ((streamMetering as MeteredPer | undefined) ?? null),
        channels: Array.isArray(operation['x-channels']) ? operation['x-channels'].map(String) : [],
        cache: (operation['x-cache'] as CacheMode | undefined) ?? 'none',
        queryParameters,
        nestedBodyFields: nestedBodyFields(operation),
      });
    }
  }
  return operations;
}

export interface MatchedOperation {
  operation: Operation;
  /** Path parameter values in template order. */
  params: string[];
}

/** Finds the operation a method and URL reach, the way Express routes them. */
export class OperationIndex {
  private readonly routes: Array<{ operation: Operation; pattern: RegExp }>;

  constructor(operations: readonly Operation[]) {
    // Literal templates before parameterised ones (/markets/categories before /markets/{id}), as routes are mounted.
    const literalFirst = [...operations].sort((a, b) => Number(a.path.includes('{')) - Number(b.path.includes('{')));
    this.routes = literalFirst.map((operation) => ({
      operation,
      pattern: new RegExp(
        `^${operation.path
          .split(/\{[^}]+\}/)
          .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
          .join('([^/]+)')}/?$`,
        'i',
      ),
    }));
  }

  match(method: string | undefined, url: string): MatchedOperation | undefined {
    const path = url.split('?', 1)[0]!;
    for (const { operation, pattern } of this.routes) {
      if (operation.method !== method) continue;
      const found = pattern.exec(path);
      if (found) return { operation, params: found.slice(1) };
    }
    return undefined;
  }
}
