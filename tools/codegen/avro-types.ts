/**
 * TypeScript types from the Avro schemas in schemas/: the .avsc files are the one place an event's
 * fields are named (they are what the schema registry holds and what any consumer in any language
 * reads); the TS types are derived from them and never edited by hand.
 *
 * Mapping: record -> interface; enum -> union of its symbols; a string with `x-symbols` (our
 * annotation: a string restricted to these values, kept a string so adding a value stays a
 * compatible change) -> union of those values; int/long/float/double -> number (longs hold epoch
 * milliseconds and stay below 2^53); boolean; bytes/fixed -> Buffer; array -> T[]; map ->
 * Record<string, T>; ["null", T] -> T | null.
 */
import fs from 'node:fs';
import path from 'node:path';

type AvroType = string | AvroType[] | { type: string; [key: string]: unknown };

interface AvroField {
  name: string;
  type: AvroType;
  doc?: string;
  'x-symbols'?: string[];
}

const PRIMITIVES: Record<string, string> = {
  null: 'null',
  boolean: 'boolean',
  int: 'number',
  long: 'number',
  float: 'number',
  double: 'number',
  string: 'string',
  bytes: 'Buffer',
};

export interface SchemaFile {
  /** File name without .avsc, e.g. trade.executed.v1 */
  name: string;
  schema: { type: string; name: string; [key: string]: unknown };
}

export function readSchemaFiles(directory: string): SchemaFile[] {
  return fs
    .readdirSync(directory)
    .filter((file) => file.endsWith('.avsc'))
    .sort()
    .map((file) => ({ name: file.replace(/\.avsc$/, ''), schema: JSON.parse(fs.readFileSync(path.join(directory, file), 'utf8')) }));
}

const literal = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function docComment(doc: unknown, indent: string): string {
  if (typeof doc !== 'string' || doc.trim() === '') return '';
  const lines = doc.trim().split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]!.replace(/\*\//g, '*\\/')} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line.replace(/\*\//g, '*\\/')}`).join('\n')}\n${indent} */\n`;
}

/** Emits the declarations of every named type (records, enums) reachable from the schemas. */
export function avroTypesModule(files: SchemaFile[], header: string): string {
  const declarations: string[] = [];
  const declared = new Set<string>();

  const typeOf = (type: AvroType, field?: AvroField): string => {
    if (typeof type === 'string') {
      if (type === 'string' && field?.['x-symbols']) return field['x-symbols'].map(literal).join(' | ');
      return PRIMITIVES[type] ?? type.split('.').at(-1)!;
    }
    if (Array.isArray(type)) return type.map((member) => typeOf(member, field)).join(' | ');
    switch (type.type) {
      case 'record':
        declareRecord(type);
        return String(type.name);
      case 'enum':
        declareEnum(type);
        return String(type.name);
      case 'array':
        return `Array<${typeOf(type.items as AvroType)}>`;
      case 'map':
        return `Record<string, ${typeOf(type.values as AvroType)}>`;
      case 'fixed':
        return 'Buffer';
      default:
        return typeOf(type.type, field);
    }
  };

  const declareEnum = (type: Record<string, unknown>) => {
    const name = String(type.name);
    if (declared.has(name)) return;
    declared.add(name);
    declarations.push(`${docComment(type.doc, '')}export type ${name} = ${(type.symbols as string[]).map(literal).join(' | ')};\n`);
  };

  const declareRecord = (type: Record<string, unknown>) => {
    const name = String(type.name);
    if (declared.has(name)) return;
    declared.add(name);
    const fields = (type.fields as AvroField[]).map(
      (field) => `${docComment(field.doc, '  ')}  ${field.name}: ${typeOf(field.type, field)};\n`,
    );
    declarations.push(`${docComment(type.doc, '')}export interface ${name} {\n${fields.join('')}}\n`);
  };

  for (const file of files) typeOf(file.schema);
  const bySchema = files.map((file) => `  ${literal(file.name)}: ${file.schema.name};\n`).join('');
  return `${header}\n${declarations.join('\n')}\n/** The root record type of each schema file. */\nexport interface EventsBySchema {\n${bySchema}}\n\nexport type SchemaName = keyof EventsBySchema;\n\nexport const SCHEMA_NAMES: readonly SchemaName[] = [${files.map((f) => literal(f.name)).join(', ')}];\n`;
}
