/**
 * Routes read their query parameters through `queryOf` (services/http/query.ts), typed by their
 * operation from the API document, whose validator has applied the document's defaults: so a route
 * can neither misspell a parameter nor restate a default. The untyped `request.query` is read only by
 * the few modules that serve every operation alike.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/processes.js';

/** Each reads what every operation shares, or what no one schema names. */
const GENERIC = new Set([
  'services/http/query.ts', // queryOf itself
  'services/http/keyset.ts', // limit and cursor of every list
  'services/read-models/markets/queries.ts', // the market of a path or of a `market` parameter
  'api/numeric-params.ts', // the numeric check of every operation's parameters
  'api/streams/sse.ts', // a channel's filters, which the channel checks (services/streams/)
]);

function sources(directory: string): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, directory), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.generated.ts'))
    .map((file) => path.join(directory, file));
}

test('no route reads request.query but through queryOf', () => {
  const readers = [...sources('services'), ...sources('api')].filter((file) =>
    /\b(request|req)\.query\b/.test(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')),
  );
  expect(readers.filter((file) => !GENERIC.has(file)).sort()).toEqual([]);
  // The list only shrinks: a module that stopped reading it leaves the list.
  expect([...GENERIC].filter((file) => !readers.includes(file))).toEqual([]);
});
