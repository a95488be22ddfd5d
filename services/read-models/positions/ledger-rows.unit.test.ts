/** The ledger's row codec: a row's JSONCompactEachRow line holds every column, in LEDGER_COLUMNS order. */
import { decodeRow, encodeRow, LEDGER_COLUMNS, type LedgerRow } from './ledger-rows.js';

test('a row encoded and decoded is the same row, each value under its own column', () => {
  // A distinct value in every column: a line whose values were in another order than the columns would swap some.
  const row = Object.fromEntries(LEDGER_COLUMNS.map((column, i) => [column, i % 3 === 0 ? i : `${column}-${i}`])) as unknown as LedgerRow;
  expect(decodeRow(encodeRow(row))).toEqual(row);
  expect(JSON.parse(encodeRow(row))).toEqual(LEDGER_COLUMNS.map((column) => row[column]));
});
