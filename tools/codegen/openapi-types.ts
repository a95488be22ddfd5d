/**
 * TypeScript types of the API document's component schemas (api/openapi.yaml), so the code that
 * shapes a response is checked against the same document that validates it and that clients are
 * generated from. Covers the JSON Schema the document uses: $ref, type (with "null" and integer),
 * enum, const, properties/required, additionalProperties, items, allOf (intersection), oneOf/anyOf
 * (union).
 */
import fs from 'node:fs';
import { parse } from 'yaml';
import type { JsonSchema } from './openapi-document.js';

const SIMPLE: Record<string, string> = { string: 'string', number: 'number', integer: 'number', boolean: 'boolean', null: 'null' };

const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));

export function tsType(schema: JsonSchema, indent: string): string {
  if (schema.$ref) return schema.$ref.replace('#/components/schemas/', '');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.allOf) return schema.allOf.map((part) => wrap(tsType(part, indent))).join(' & ');
  const union = schema.oneOf ?? schema.anyOf;
  if (union) return union.map((part) => wrap(tsType(part, indent))).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return schema.properties ? objectType(schema, indent) : 'unknown';
  return types
    .map((type) => {
      if (type === 'object') return objectType(schema, indent);
      if (type === 'array') return `Array<${schema.items ? tsType(schema.items, indent) : 'unknown'}>`;
      return SIMPLE[type] ?? 'unknown';
    })
    .join(' | ');
}

const wrap = (type: string) => (/[|&]/.test(type) && !type.startsWith('{') ? `(${type})` : type);

function objectType(schema: JsonSchema, indent: string): string {
  const inner = `${indent}  `;
  const required = new Set(schema.required ?? []);
  const lines = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const doc = property.description
      ? `${inner}/** ${property.description
          .trim()
          .replace(/\s*\n\s*/g, ' ')
          .replace(/\*\//g, '*\\/')} */\n`
      : '';
    return `${doc}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${tsType(property, inner)};\n`;
  });
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object') lines.push(`${inner}[key: string]: ${tsType(extra, inner)};\n`);
  else if (extra === true || (extra === undefined && lines.length === 0)) lines.push(`${inner}[key: string]: unknown;\n`);
  return `{\n${lines.join('')}${indent}}`;
}

export function openapiTypesModule(openapiPath: string, header: string): string {
  const document = parse(fs.readFileSync(openapiPath, 'utf8')) as { components?: { schemas?: Record<string, JsonSchema> } };
  return `${header}\n${componentTypes(document.components?.schemas ?? {})}`;
}

/** One `export type` per component schema. */
export function componentTypes(schemas: Record<string, JsonSchema>): string {
  const declarations = Object.entries(schemas).map(([name, schema]) => {
    const doc = schema.description
      ? `/** ${schema.description
          .trim()
          .replace(/\s*\n\s*/g, ' ')
          .replace(/\*\//g, '*\\/')} */\n`
      : '';
    return `${doc}export type ${name} = ${tsType(schema, '')};\n`;
  });
  return declarations.join('\n');
}
