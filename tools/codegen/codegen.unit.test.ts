/** Generated sources are never stale: a schema or API-document edit without `npm run gen` fails here. */
import { staleFiles } from './main.js';

test('every generated file matches what its source generates now (run `npm run gen`)', () => {
  expect(staleFiles()).toEqual([]);
});
