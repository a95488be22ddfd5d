/**
 * Several one-row reads in one statement: a UNION ALL of SELECTs, one per part, instead of one SELECT
 * of scalar subqueries. The engine runs a statement's scalar subqueries one after another while it
 * analyses the statement, each with its own plan; the branches of a UNION ALL are one pipeline, run on
 * the statement's threads together, which made the busiest bench wallet's report statement about a
 * fifth faster on chDB (measured: docs/POSITIONS.md at 2ee4e77).
 *
 * Each part is a SELECT returning exactly one row with one column named `value` (an aggregate without
 * GROUP BY, such as groupArray of tuples). It comes back as JSON text (toJSONString: the JSON the
 * statement's output format gives the column, 64-bit integers unquoted as in every query) and is
 * parsed here, so callers get the same arrays a scalar subquery column gave them. A part typed as
 * optional may be left out of `parts` (a statement only pays for the parts it needs); it is then absent
 * from the result.
 *
 * The rows are read as raw text (queryText), a line of `part<TAB>json` each: JSON text holds no raw tab
 * or newline. As JSONEachRow, each payload was escaped into a JSON string, which the client decoded
 * into a second copy before parsing it here. The busiest bench wallet's report returns 352 KB that
 * way; strings that large are allocated in V8's old generation, whose growth sets how often the
 * process stops for a mark-compact (docs/POSITIONS.md at 2ee4e77, "The p99").
 */
import type { AnalyticsStore, QueryParams } from '../ports/analytics-store.js';

const PART_NAME = /^[a-z][a-z0-9_]*$/;

export async function readParts<T extends object>(
  store: AnalyticsStore,
  parts: { [K in keyof T]: string },
  params?: QueryParams,
): Promise<T> {
  const names = Object.keys(parts) as Array<keyof T & string>;
  for (const name of names) if (!PART_NAME.test(name)) throw new Error(`part name ${JSON.stringify(name)} is not an identifier`);
  const sql = names.map((name) => `SELECT '${name}' AS part, toJSONString(value) AS payload FROM (${parts[name]})`).join('\nUNION ALL\n');
  const text = await store.queryText(sql, params);
  const result: Partial<Record<keyof T, unknown>> = {};
  // Every row ends with a newline, so the text splits into the rows and one empty string after them.
  for (const line of text.split('\n').slice(0, -1)) {
    const tab = line.indexOf('\t');
    const part = line.slice(0, tab);
    if (tab === -1 || !(names as string[]).includes(part))
      throw new Error(`readParts: a line of the result names no part: ${line.slice(0, 80)}`);
    if (part in result) throw new Error(`part ${part} returned more than one row`);
    result[part as keyof T] = JSON.parse(line.slice(tab + 1));
  }
  for (const name of names) if (!(name in result)) throw new Error(`part ${name} returned no row`);
  return result as T;
}
