/**
 * Numeric query parameters are checked by type before any store sees them: a number that is not
 * finite (`1e309` is Infinity in a double), a hex or binary spelling (`0x10`), or an exponent that
 * makes a huge integer is a 400 naming the parameter, never a 500 from a query built with it
 * (issue 59, low).
 */
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { requestJson } from '../support/http.js';

let h: ApiHarness;
let key: string;

beforeAll(async () => {
  h = await startApiHarness({ webhooks: true });
  key = (await h.admin.createKey('numeric-params', '2')).api_key;
}, 60_000);
afterAll(() => h?.close());

const CASES: Array<{ path: string; name: string }> = [
  { path: '/markets', name: 'limit' },
  { path: '/events', name: 'limit' },
  { path: '/series', name: 'limit' },
  { path: '/trades', name: 'limit' },
  { path: '/leaderboard', name: 'limit' },
  { path: '/traders/browse', name: 'limit' },
  { path: '/trades', name: 'min_size' },
  { path: '/traders/browse', name: 'min_volume' },
  { path: '/volume/timeseries', name: 'range_days' },
  { path: '/keys', name: 'limit' },
  { path: '/copy/intents', name: 'limit' },
  { path: '/webhooks', name: 'limit' },
];
const BAD = ['1e309', '-1e309', 'Infinity', 'NaN', '0x10', '0b11', '0o7', '1e400', ' 5', ''];

test.each(CASES)('$path?$name= a non-finite, hex or blank number is a 400 naming $name', async ({ path, name }) => {
  const seen: Array<{ value: string; status: number; names: boolean }> = [];
  for (const value of BAD) {
    const response = await requestJson('GET', `${h.base}/v1${path}?${name}=${encodeURIComponent(value)}`, key);
    seen.push({ value, status: response.status, names: String(response.body.error ?? '').includes(name) });
  }
  expect(seen).toEqual(BAD.map((value) => ({ value, status: 400, names: true })));
});

test('a plain decimal still works', async () => {
  const response = await requestJson('GET', `${h.base}/v1/markets?limit=5`, key);
  expect(response.status).toBe(200);
  expect(response.body.pagination).toMatchObject({ limit: 5 });
});

test('a JSON body carries numbers as numbers: "0x10" where a number is declared is a 400 naming the field, not 16', async () => {
  for (const value of ['0x10', '16', '1e309']) {
    const response = await requestJson('POST', `${h.base}/v1/webhooks`, key, {
      url: 'https://example.com/hook',
      events: ['trade.executed'],
      filters: { min_size_usdc: value },
    });
    expect({ value, status: response.status, names: String(response.body.error).includes('min_size_usdc') }).toEqual({
      value,
      status: 400,
      names: true,
    });
  }
  const backtest = await requestJson('POST', `${h.base}/v1/backtest`, key, { strategy: 'price_threshold', change_pct: '0x10' });
  expect(backtest.status).toBe(400);
  expect(backtest.body.error).toContain('change_pct');
});
