/**
 * The Python SDK's generated half: pydantic v2 models of the component schemas
 * (clients/python/src/tapeline/models.py) and one typed method per operation, sync and async
 * (clients/python/src/tapeline/_operations.py).
 *
 * Why pydantic models from our own generator rather than openapi-python-client or
 * datamodel-code-generator: openapi-python-client emits a whole client of its own (attrs models, its
 * own httpx wrapper) that would sit beside the retry, paging and error layer every SDK here shares,
 * and both tools would run only inside a Python environment, so the staleness check could not be the
 * one unit test that already guards every generated file. Pydantic is what Python data users
 * expect (validation, `.model_dump()`, IDE types) and the document's JSON Schema subset is small.
 *
 * Numbers are `Decimal` (pydantic validates responses straight from the bytes, so every figure keeps the
 * exact digits the service sent), timestamps `datetime`, dates `date`; enums and consts `Literal`.
 * Models keep unknown fields (`extra="allow"`), so a field the service adds later does not break an
 * older client.
 */
import { type ApiDocument, inlineRefs, type JsonSchema, type Operation } from './openapi-document.js';
import { bodyMembers } from './ts-client.js';

const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

const pyName = (name: string) => {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .toLowerCase();
  return PY_KEYWORDS.has(snake) || /^\d/.test(snake) ? `${snake}_` : snake;
};

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

const singular = (name: string) => (name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : name);

const pyLiteral = (value: unknown): string => {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return JSON.stringify(value);
};

const pyString = (text: string) => JSON.stringify(text.replace(/\s*\n\s*/g, ' ').trim());

const refName = (ref: string) => ref.replace('#/components/schemas/', '');

const isObjectSchema = (schema: JsonSchema, schemas: Record<string, JsonSchema>): boolean => {
  const target = schema.$ref ? schemas[refName(schema.$ref)] : schema;
  if (!target) return false;
  if (target.allOf) return target.allOf.every((part) => isObjectSchema(part, schemas));
  return Boolean(target.properties) && (target.type === undefined || target.type === 'object');
};

/** Emits pydantic classes; `typeOf` names inline object schemas after where they appear. */
class ModelWriter {
  private readonly declared: Array<{ name: string; bases: string[]; text: string }> = [];
  readonly aliases: string[] = [];
  readonly classNames: string[] = [];
  private readonly taken = new Set<string>();

  constructor(
    private readonly schemas: Record<string, JsonSchema>,
    private readonly prefix = '',
  ) {
    for (const name of Object.keys(schemas)) this.taken.add(name);
  }

  typeOf(schema: JsonSchema, context: string): string {
    if (schema.$ref) return this.prefix + refName(schema.$ref);
    if (schema.const !== undefined) return `Literal[${pyLiteral(schema.const)}]`;
    if (schema.enum) {
      const values = schema.enum.filter((v) => v !== null);
      const literal = `Literal[${values.map(pyLiteral).join(', ')}]`;
      return schema.enum.includes(null) ? `Optional[${literal}]` : literal;
    }
    if (schema.allOf) {
      if (schema.allOf.length === 1) return this.typeOf(schema.allOf[0]!, context);
      return this.declareClass(this.fresh(context), schema);
    }
    const union = schema.oneOf ?? schema.anyOf;
    if (union) return this.union(union.map((part) => this.typeOf(part, context)));
    const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    if (types.length === 0) return schema.properties ? this.declareClass(this.fresh(context), schema) : 'Any';
    return this.union(
      types.map((type) => {
        switch (type) {
          case 'object':
            if (schema.properties) return this.declareClass(this.fresh(context), schema);
            if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
              return `dict[str, ${this.typeOf(schema.additionalProperties, `${context}Value`)}]`;
            return 'dict[str, Any]';
          case 'array':
            return `list[${schema.items ? this.typeOf(schema.items, singular(context)) : 'Any'}]`;
          case 'string':
            // Aliased imports: a field may be named `date` (pydantic refuses a field that shadows its own annotation).
            return schema.format === 'date-time' ? '_datetime' : schema.format === 'date' ? '_date' : 'str';
          case 'integer':
            return 'int';
          case 'number':
            return 'Decimal';
          case 'boolean':
            return 'bool';
          case 'null':
            return 'None';
          default:
            return 'Any';
        }
      }),
    );
  }

  /** Class definitions, each after its base classes (Python evaluates bases when the class statement runs). */
  get classes(): string[] {
    const ordered: string[] = [];
    const done = new Set<string>();
    const visit = (entry: { name: string; bases: string[]; text: string }) => {
      if (done.has(entry.name)) return;
      done.add(entry.name);
      for (const base of entry.bases) {
        const parent = this.declared.find((candidate) => this.prefix + candidate.name === base);
        if (parent) visit(parent);
      }
      ordered.push(entry.text);
    };
    for (const entry of this.declared) visit(entry);
    return ordered;
  }

  /** A component: a class for object schemas, a type alias otherwise. */
  declareComponent(name: string, schema: JsonSchema): void {
    if (isObjectSchema(schema, this.schemas) && !schema.$ref) this.declareClass(name, schema);
    else this.aliases.push(`${doc(schema.description)}${name} = ${this.typeOf(schema, name)}\n`);
  }

  private union(members: string[]): string {
    const unique = [...new Set(members)];
    const nullable = unique.includes('None');
    const rest = unique.filter((m) => m !== 'None');
    if (rest.length === 0) return 'None';
    const inner = rest.length === 1 ? rest[0]! : `Union[${rest.join(', ')}]`;
    return nullable ? `Optional[${inner}]` : inner;
  }

  private fresh(context: string): string {
    let name = pascal(context);
    while (this.taken.has(name)) name = `${name}Item`;
    this.taken.add(name);
    return name;
  }

  private declareClass(name: string, schema: JsonSchema): string {
    const bases: string[] = [];
    const own: JsonSchema[] = [];
    for (const part of schema.allOf ?? [schema]) {
      if (part.$ref) bases.push(this.prefix + refName(part.$ref));
      else own.push(part);
    }
    const fields: string[] = [];
    for (const part of own) {
      const required = new Set(part.required ?? []);
      for (const [property, propertySchema] of Object.entries(part.properties ?? {})) {
        const type = this.typeOf(propertySchema, `${name}${pascal(property)}`);
        const field = pyName(property);
        const args: string[] = [];
        const optional = !required.has(property);
        if (optional) args.push('None');
        if (field !== property) args.push(`alias=${JSON.stringify(property)}`);
        if (propertySchema.description) args.push(`description=${pyString(propertySchema.description)}`);
        const annotation = optional && !type.startsWith('Optional[') ? `Optional[${type}]` : type;
        const value = args.length === 0 ? '' : args.length === 1 && optional ? ' = None' : ` = Field(${args.join(', ')})`;
        fields.push(`    ${field}: ${annotation}${value}\n`);
      }
    }
    const body = `${
      schema.description
        ? `    """${schema.description
            .trim()
            .replace(/\s*\n\s*/g, ' ')
            .replace(/"""/g, "'''")}"""\n\n`
        : ''
    }${fields.join('') || '    pass\n'}`;
    this.declared.push({ name, bases, text: `class ${name}(${bases.length > 0 ? bases.join(', ') : 'Model'}):\n${body}` });
    this.classNames.push(name);
    return name;
  }
}

const doc = (text: string | undefined) => (text ? `# ${text.trim().replace(/\s*\n\s*/g, ' ')}\n` : '');

export function pythonModelsModule(api: ApiDocument, header: string): string {
  const writer = new ModelWriter(api.schemas);
  for (const [name, schema] of Object.entries(api.schemas)) writer.declareComponent(name, schema);
  const events = api.webhooks.map((hook) => `    ${JSON.stringify(hook.event)}: ${writer.typeOf(hook.schema, 'Event')},\n`).join('');
  return `${header}
from __future__ import annotations

from datetime import date as _date, datetime as _datetime
from decimal import Decimal
from typing import Any, Literal, Optional, Union

from pydantic import Field

from ._base import Model

${writer.classes.join('\n\n')}

# Type aliases after the classes: an alias is evaluated when the module runs (a union of classes needs
# them defined), while the classes' annotations are resolved only by model_rebuild below.
${writer.aliases.join('\n')}

#: Webhook delivery bodies by event type.
WEBHOOK_EVENTS: dict[str, type[Model]] = {
${events}}

for _model in (${writer.classNames.join(', ')},):
    _model.model_rebuild()
`;
}

interface PyParam {
  name: string;
  wire: string;
  where: 'path' | 'query' | 'body';
  required: boolean;
  type: string;
  description?: string;
}

function pyParams(op: Operation, api: ApiDocument, writer: ModelWriter): PyParam[] {
  const params: PyParam[] = op.parameters
    .filter((p) => p.in !== 'header')
    .map((p) => ({
      name: pyName(p.name),
      wire: p.name,
      where: p.in as 'path' | 'query',
      required: p.required,
      type: writer.typeOf(inlineRefs(p.schema, api.schemas), 'Param'),
      ...(p.description ? { description: p.description } : {}),
    }));
  for (const member of bodyMembers(op, api.schemas)) {
    params.push({
      name: pyName(member.name),
      wire: member.name,
      where: 'body',
      required: member.required,
      type: writer.typeOf(member.schema, `${op.id}${pascal(member.name)}`),
      ...(member.schema.description ? { description: member.schema.description } : {}),
    });
  }
  // Required first, then optional; all keyword-only.
  return [...params.filter((p) => p.required), ...params.filter((p) => !p.required)];
}

/**
 * The event stream's channels and the filters each takes (GET /stream/sse: the \`channel\` enum and each
 * filter's x-channels), so the client's \`stream\` signature is checked against the document.
 */
function streamChannels(api: ApiDocument): string {
  const sse = api.streams.find((op) => op.path === '/stream/sse');
  if (!sse) throw new Error('the API document has no GET /stream/sse');
  const channels = (sse.parameters.find((p) => p.name === 'channel')?.schema.enum ?? []) as string[];
  const filters = sse.parameters.filter((p) => p.in === 'query' && p.name !== 'channel' && p.name !== 'cursor');
  const rows = channels.map((channel) => {
    const names = filters.filter((p) => !p.channels || p.channels.includes(channel)).map((p) => JSON.stringify(p.name));
    return `    ${JSON.stringify(channel)}: (${names.join(', ')}${names.length === 1 ? ',' : ''}),\n`;
  });
  return `#: The channels of GET /stream/sse.
StreamChannel = Literal[${channels.map((c) => JSON.stringify(c)).join(', ')}]

#: The filters each channel takes (any other is a 400 naming it).
STREAM_FILTERS: dict[str, tuple[str, ...]] = {
${rows.join('')}}`;
}

export function pythonOperationsModule(api: ApiDocument, header: string): string {
  const writer = new ModelWriter(api.schemas, 'm.');
  const requestModels: string[] = [];
  const rendered = api.operations.map((op) => {
    const declared = writer.classNames.length;
    const params = pyParams(op, api, writer);
    // The classes a request's parameters declared (inline objects of a body, such as createExport's
    // `filters`): callers build them, so the package exports them (`from tapeline import CreateExportFilters`).
    requestModels.push(...writer.classNames.slice(declared));
    const itemType = op.paginated && op.data.items ? writer.typeOf(op.data.items, `${op.id}Item`) : undefined;
    const dataType = op.binary ? 'bytes' : itemType ? `list[${itemType}]` : writer.typeOf(op.data, `${op.id}Data`);
    return { op, params, itemType, dataType };
  });
  const methods = (asynchronous: boolean) =>
    rendered
      .map(({ op, params, itemType, dataType }) => {
        const returns = itemType ? `${asynchronous ? 'AsyncPage' : 'Page'}[${itemType}]` : dataType;
        const signature = params
          .map((p) =>
            p.required ? `${p.name}: ${p.type}` : `${p.name}: ${p.type.startsWith('Optional[') ? p.type : `Optional[${p.type}]`} = None`,
          )
          .join(', ');
        const groups = (['path', 'query', 'body'] as const).map(
          (where) =>
            `{${params
              .filter((p) => p.where === where)
              .map((p) => `${JSON.stringify(p.wire)}: ${p.name}`)
              .join(', ')}}`,
        );
        const argsDoc = params
          .filter((p) => p.description)
          .map((p) => `            ${p.name}: ${p.description!.replace(/\s*\n\s*/g, ' ')}\n`);
        const docstring = (summary: string, extraArgs: string[] = []) => {
          const args = [...extraArgs, ...argsDoc];
          return `        """${summary.replace(/"""/g, "'''")}\n\n        ${op.method} ${op.path}${op.access ? ` (access: ${op.access})` : ''}.${args.length > 0 ? `\n\n        Args:\n${args.join('')}` : '\n'}        """\n`;
        };
        const call = (method: string, args: string) =>
          `        return ${asynchronous ? 'await ' : ''}self.${method}(${args})  # type: ignore[no-any-return]\n`;
        const define = (name: string, leading: string, returnType: string) =>
          `    ${asynchronous ? 'async ' : ''}def ${name}(self${leading}${signature ? `, *, ${signature}` : ''}) -> ${returnType}:\n`;
        const groupArgs = `${JSON.stringify(op.id)}, ${groups.join(', ')}`;
        if (!op.binary) return `${define(pyName(op.id), '', returns)}${docstring(op.summary)}${call('_call', groupArgs)}`;
        // A file, not the envelope: its bytes in memory, or (the \`_to\` twin) streamed to a path.
        return `${define(pyName(op.id), '', 'bytes')}${docstring(`${op.summary} Returns the file's bytes (held in memory; \`${pyName(op.id)}_to\` streams to disk).`)}${call('_call', groupArgs)}
${define(`${pyName(op.id)}_to`, ', path: Union[str, PathLike[str]]', 'DownloadedFile')}${docstring(
  `${op.summary} Streamed to \`path\` (written as \`<path>.partial\` and renamed once whole); returns its path, size and SHA-256.`,
  ['            path: Where to write the file (its folder is created).\n'],
)}${call('_call_to', `${JSON.stringify(op.id)}, path, ${groups.join(', ')}`)}`;
      })
      .join('\n');
  const table = rendered.map(
    ({ op, dataType }) =>
      `    ${JSON.stringify(op.id)}: OperationSpec(${JSON.stringify(op.method)}, ${JSON.stringify(op.path)}, ${op.paginated ? 'True' : 'False'}, ${dataType}${op.binary ? ', binary=True' : ''}),\n`,
  );
  return `${header}
from __future__ import annotations

from datetime import date as _date, datetime as _datetime
from decimal import Decimal
from os import PathLike
from typing import Any, Callable, Literal, Optional, Union

from pydantic import Field

from . import models as m
from ._base import AsyncPage, DownloadedFile, Model, OperationSpec, Page

API_VERSION = ${JSON.stringify(api.version)}

#: The request models (inline objects of request bodies): what \`from tapeline import *\` adds from here.
__all__ = [${requestModels.map((name) => JSON.stringify(name)).join(', ')}]


${writer.classes.join('\n\n')}

OPERATIONS: dict[str, OperationSpec] = {
${table.join('')}}

${streamChannels(api)}


class SyncOperations:
    """One method per API operation (blocking); the client supplies \`_call\`."""

    _call: Callable[..., Any]

${methods(false)}

class AsyncOperations:
    """One coroutine per API operation; the client supplies \`_call\`."""

    _call: Callable[..., Any]

${methods(true)}`;
}
