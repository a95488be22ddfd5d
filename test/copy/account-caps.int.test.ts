/**
 * Per-account caps on copy subscriptions and saved strategies (issue 59 H2: one account's ~1,000
 * subscriptions to the busiest wallets took other accounts' control-store calls from 36 ms to seconds).
 * Past the cap a create is 409 CONFLICT naming the setting; other accounts are unaffected; deleting
 * one frees a place. Concurrent creates cannot overshoot (the count is taken under the account lock).
 */
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { requestJson } from '../support/http.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiHarness({ database: 'account_caps', env: { COPY_SUBSCRIPTIONS_PER_ACCOUNT: '3', STRATEGIES_PER_ACCOUNT: '2' } });
}, 60_000);
afterAll(() => api.close());

const call = (method: string, path: string, key: string, body?: unknown) => requestJson(method, `${api.base}/v1${path}`, key, body);
const leader = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const subscribe = (key: string, i: number) =>
  call('POST', '/copy/subscriptions', key, { leader_wallet: leader(i), sizing: { rule: 'fixed', usdc: 5 } });

test('copy subscriptions: at most COPY_SUBSCRIPTIONS_PER_ACCOUNT per account, even when created concurrently', async () => {
  const key = (await api.admin.createKey('flooder', '2')).api_key;
  const statuses = (await Promise.all(Array.from({ length: 8 }, (_, i) => subscribe(key, i + 1)))).map((r) => r.status).sort();
  expect(statuses).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
  const refused = await subscribe(key, 99);
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ success: false, code: 'CONFLICT', reason: 'account_limit' });
  expect(refused.body.error).toMatch(/3 copy subscriptions \(the limit is 3, COPY_SUBSCRIPTIONS_PER_ACCOUNT\)/);
  // Another account has its own allowance; deleting one frees a place.
  const other = (await api.admin.createKey('bystander', '2')).api_key;
  expect((await subscribe(other, 1)).status).toBe(201);
  const [first] = (await call('GET', '/copy/subscriptions', key)).body.data;
  expect((await call('DELETE', `/copy/subscriptions/${first.id}`, key)).status).toBe(200);
  expect((await subscribe(key, 100)).status).toBe(201);
});

test('strategies: at most STRATEGIES_PER_ACCOUNT per account; the refusal comes before any backtest', async () => {
  const key = (await api.admin.createKey('strategist', '2')).api_key;
  const strategy = (name: string) =>
    call('POST', '/strategies', key, { name, market_ids: [`0x${'ab'.repeat(32)}`], change_pct: 20, window_minutes: 30, order_usdc: 100 });
  expect((await strategy('one')).status).toBe(201);
  expect((await strategy('two')).status).toBe(201);
  const refused = await strategy('three');
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ code: 'CONFLICT', reason: 'account_limit' });
  expect(refused.body.error).toMatch(/STRATEGIES_PER_ACCOUNT/);
});
