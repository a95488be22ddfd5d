/**
 * Each operation's query parameters as its route reads them, from the API document: the request
 * validator (express-openapi-validator, api/app.ts) has checked them against their schemas, coerced
 * numbers and booleans, and applied every default the document declares before a route runs, so a
 * parameter with a default is always present and a route never restates the default. `queryOf`
 * (services/http/query.ts) hands a route its operation's type.
 */
import type { ApiDocument, JsonSchema } from './openapi-document.js';
import { tsType } from './openapi-types.js';

const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));

/** A list sent as one comma-separated value (`style: form, explode: false`) may reach the route as the text itself. */
function wireType(schema: JsonSchema): string {
  const type = tsType(schema, '    ');
  return schema.type === 'array' ? `string | ${type}` : type;
}

export function queryParamTypes(api: ApiDocument): string {
  const entries = [...api.operations, ...api.streams]
    .filter((operation) => operation.parameters.some((p) => p.in === 'query'))
    .map((operation) => {
      const query = operation.parameters.filter((p) => p.in === 'query');
      const members = query.map((p) => {
        const present = p.required || p.schema.default !== undefined;
        return `    ${key(p.name)}${present ? '' : '?'}: ${wireType(p.schema)};\n`;
      });
      return `  ${operation.id}: {\n${members.join('')}  };\n`;
    })
    .sort();
  return `
/**
 * Each operation's query parameters as its route reads them (services/http/query.ts \`queryOf\`): checked
 * against the document, numbers and booleans coerced, and the document's defaults applied, so a
 * parameter with a default is always present.
 */
export interface QueryParams {
${entries.join('')}}
`;
}
