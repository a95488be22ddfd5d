import {
  parseBookTop,
  parseOptionalNumber,
  parseStringArray,
  parseTimestampMs,
  parseTokenId,
  parseTokenIds,
} from '../../services/ingest/parse.js';

describe('timestamps in the four upstream formats', () => {
  test.each([
    ['2026-03-11T09:29:01.328428Z', Date.UTC(2026, 2, 11, 9, 29, 1, 328)],
    ['2026-06-01T09:00:00Z', Date.UTC(2026, 5, 1, 9, 0, 0)],
    ['2026-05-25 22:43:31+00', Date.UTC(2026, 4, 25, 22, 43, 31)],
    ['2025-01-05 17:33:51.448+00', Date.UTC(2025, 0, 5, 17, 33, 51, 448)],
    ['2026-06-30', Date.UTC(2026, 5, 30)],
    [1774166009, 1774166009000],
    ['1728799418260', 1728799418260],
    ['1774166009', 1774166009000],
  ])('%p', (raw, expected) => {
    expect(parseTimestampMs(raw)).toBe(expected);
  });

  test.each([null, undefined, '', 'yesterday', {}, -5, '2026-13-45T99:00:00Z'])('rejects %p', (raw) => {
    expect(parseTimestampMs(raw)).toBeNull();
  });
});

describe('JSON arrays inside strings', () => {
  test('decodes Gamma outcomes and keeps 78-digit token ids as strings', () => {
    const id = '1'.repeat(78);
    expect(parseStringArray(`["${id}", "2"]`, 'clobTokenIds')).toEqual({ ok: true, value: [id, '2'] });
    expect(parseStringArray(['Yes', 'No'], 'outcomes')).toEqual({ ok: true, value: ['Yes', 'No'] });
  });

  test('names the field when the string is not an array', () => {
    expect(parseStringArray('[oops', 'outcomes')).toEqual({ ok: false, reason: 'outcomes is not a JSON array string' });
    expect(parseStringArray('{"a":1}', 'outcomes')).toEqual({ ok: false, reason: 'outcomes is not an array' });
  });
});

test('numbers from JSON numbers or decimal strings', () => {
  expect(parseOptionalNumber('0.5843311669077693146635445446077281')).toBeCloseTo(0.58433116690777);
  expect(parseOptionalNumber(12)).toBe(12);
  expect(parseOptionalNumber('abc')).toBeNull();
  expect(parseOptionalNumber(undefined)).toBeNull();
});

describe('token ids stay exact', () => {
  test('digit strings pass; exact JSON numbers are accepted as strings', () => {
    const id = `1${'2'.repeat(77)}`;
    expect(parseTokenId(id, 'asset')).toEqual({ ok: true, value: id });
    expect(parseTokenId(12345, 'asset')).toEqual({ ok: true, value: '12345' });
  });

  test('a 77-digit id that arrived as a JSON number is refused with the reason', () => {
    // What JSON.parse makes of a 78-digit number: the digits past the 17th are gone.
    const lossy = JSON.parse(`[5${'1'.repeat(75)}3]`)[0] as number;
    const result = parseTokenId(lossy, 'asset');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/asset arrived as a JSON number \(5\.1+\d*e\+76\) beyond 2\^53 and lost precision/);
    // Just past 2^53 is refused too: 2^53 + 1 reads back as 2^53.
    expect(parseTokenId(2 ** 53 + 2, 'asset').ok).toBe(false);
  });

  test('lists inside strings: one lossy element refuses the list', () => {
    expect(parseTokenIds('["11", "12"]', 'clobTokenIds')).toEqual({ ok: true, value: ['11', '12'] });
    expect(parseTokenIds(`["11", 5${'0'.repeat(77)}]`, 'clobTokenIds').ok).toBe(false);
    expect(parseTokenIds('["11", "1.5"]', 'clobTokenIds')).toEqual({ ok: false, reason: 'clobTokenIds is not a token id: "1.5"' });
  });
});

describe("Gamma's empty-book markers", () => {
  test.each([
    [0, 1, null, null],
    [0, 0.42, null, 0.42],
    [0.41, 1, 0.41, null],
    [0.41, 0.42, 0.41, 0.42],
    [undefined, '0.5', null, 0.5],
  ])('bestBid %p, bestAsk %p -> %p / %p', (bid, ask, expectedBid, expectedAsk) => {
    expect(parseBookTop(bid, ask)).toEqual({ bid: expectedBid, ask: expectedAsk });
  });
});
