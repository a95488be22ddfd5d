/**
 * api/exports-datasets.md: the export datasets' schemas, next to the API document, written from the one
 * table that defines them (services/exports/schemas.ts), so the document cannot drift from the files.
 */
import { DATASET_NAMES, DATASET_SCHEMAS, parquetTypeOf } from '../../services/exports/schemas.js';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** A Markdown table with its columns padded to one width, as the formatter writes them. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

export function exportDatasetsDocs(header: string): string {
  const sections = DATASET_NAMES.map((name) => {
    const schema = DATASET_SCHEMAS[name];
    const rows = schema.columns.map((c) => [c.name, cell(c.type), cell(parquetTypeOf(c.type)), cell(c.description)]);
    return [
      `## \`${name}\` (schema_version ${schema.schemaVersion})`,
      '',
      schema.summary,
      '',
      `- Filters: ${schema.filters.map((f) => `\`${f}\``).join(', ')}${schema.time !== null ? ' (`from` and `to` required)' : ''}.`,
      `- Files: ${schema.time !== null ? `one per UTC day of \`${schema.time}\`, \`date=YYYY-MM-DD/part-0.<ext>\`` : 'one, `part-0.<ext>`'}.`,
      `- Row order within a file: ${schema.order}.`,
      '',
      ...table(['column', 'ClickHouse type', 'Parquet', 'meaning'], rows),
    ].join('\n');
  });
  return `${header}

# Export datasets

What each dataset of \`POST /v1/exports\` holds: its columns in file order, the type the engine writes
(ClickHouse, and the Parquet type it becomes), the filters it takes and how its files are split. A
change to a dataset's columns raises its \`schema_version\`, which every manifest states. How exports
run, their limits and how to read them: docs/EXPORTS.md.

Amounts are exact: \`Decimal(38, 6)\` columns (Parquet DECIMAL) equal the numbers the API serves, next
to exact micro-unit integers (\`*_micro\`, 10^-6) where the source keeps them; no amount is a float.
The \`market_*\` resolution columns are joined when the file is written: a file written before its
market resolved has nulls there, an export made later fills them.

${sections.join('\n\n')}
`;
}
