/**
 * The read cache through HTTP: an account's private reads are never served to another account in
 * any spelling of their path (Express routes case-insensitively), spellings of one shared query
 * share one entry, and a flood of distinct queries stays within the cache's bounds.
 */
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { getJson } from '../support/http.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiHarness({
    database: 'read_cache',
    webhooks: true,
    env: { READ_CACHE_TTL_MS: '60000', READ_CACHE_MAX_ENTRIES: '50', READ_CACHE_MAX_BYTES: '40000', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
  });
}, 60_000);
afterAll(() => api.close());

test.each(['/v1/USAGE', '/v1/Agents/me', '/v1/Webhooks', '/v1/usage', '/v1/agents/ME', '/v1/webhooks'])(
  "account A's %s is never served to account B",
  async (path) => {
    const a = await api.accounts.registerAgent('account-a');
    const b = await api.accounts.registerAgent('account-b');
    await fetch(`${api.base}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/a-only', events: ['market.resolved'] }),
    });
    const first = await getJson(`${api.base}${path}`, a.api_key);
    expect(first.status).toBe(200);
    const second = await getJson(`${api.base}${path}`, b.api_key);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-cache')).toBeNull();
    expect(JSON.stringify(second.body)).not.toContain('a-only');
    if (second.body.data?.agent_id !== undefined) expect(second.body.data.agent_id).toBe(b.account_id);
    if (second.body.data?.name !== undefined) expect(second.body.data.name).toBe('account-b');
  },
);

test('spellings of one query share one cache entry', async () => {
  const key = (await api.admin.createKey('cache-spellings', '1')).api_key;
  const first = await getJson(`${api.base}/v1/markets?status=all&limit=500`, key);
  expect(first.status).toBe(200);
  expect(first.headers.get('x-cache')).toBe('miss');
  for (const variant of ['/v1/markets?status=al%6C&limit=500', '/v1/markets?limit=0500&status=all', '/v1/MARKETS?limit=500&status=%61ll']) {
    const response = await getJson(`${api.base}${variant}`, key);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-cache')).toBe('hit');
    expect(response.body).toEqual(first.body);
  }
});

test('a flood of distinct queries stays within the entry and byte bounds', async () => {
  const key = (await api.admin.createKey('cache-flood', '1')).api_key;
  for (let limit = 1; limit <= 300; limit++) {
    const response = await getJson(`${api.base}/v1/markets?status=all&limit=${limit}`, key);
    expect(response.status).toBe(200);
  }
  // Undeclared parameters never reach the cache (the validator refuses them).
  for (let i = 0; i < 100; i++) expect((await getJson(`${api.base}/v1/markets?buster=${i}`, key)).status).toBe(400);
  const stats = api.api.handler.cache.stats();
  expect(stats.entries).toBeLessThanOrEqual(50);
  expect(stats.bytes).toBeLessThanOrEqual(40_000);
  expect(stats.evictions).toBeGreaterThan(200);
});
