/**
 * /v1/keys for the key's owner: keys listed by their safe prefix with tier, creation and last use; a
 * key added, rotated (new key shown once, old one working through its grace) and revoked (refused at
 * once), never across accounts; and the operator's revoke and rotate.
 */
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { getJson, postJson } from '../support/http.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiHarness({ database: 'keys', env: { KEYS_PER_ACCOUNT: '3', METER_FLUSH_INTERVAL_MS: '50' } });
}, 60_000);
afterAll(() => api.close());

const post = (path: string, key: string, body: unknown = {}) => postJson(`${api.base}/v1${path}`, body, { apiKey: key });

test('list shows each key by prefix with tier, creation and last use; never the key itself', async () => {
  const issued = await api.accounts.registerAgent('lister');
  await getJson(`${api.base}/v1/markets`, issued.api_key);
  await api.meter.flush();
  const listed = await getJson(`${api.base}/v1/keys`, issued.api_key);
  expect(listed.status).toBe(200);
  expect(listed.body.data).toHaveLength(1);
  const [record] = listed.body.data;
  expect(record).toMatchObject({ tier: 'sandbox', status: 'active', expires_at: null, current: true, label: null, rotated_from: null });
  expect(record.prefix).toBe(`${issued.api_key.slice(0, 8)}…${issued.api_key.slice(-4)}`);
  expect(Date.parse(record.last_used_at)).toBeGreaterThanOrEqual(Date.parse(record.created_at));
  expect(JSON.stringify(listed.body)).not.toContain(issued.api_key);
});

test('add a key (shown once), up to the per-account limit', async () => {
  const owner = (await api.accounts.registerAgent('adder')).api_key;
  const added = await post('/keys', owner, { label: 'ci runner' });
  expect(added.status).toBe(201);
  expect(added.body.data).toMatchObject({ label: 'ci runner', status: 'active', current: false });
  expect(added.body.data.api_key).toMatch(/^aif_[0-9A-Za-z]{38}$/);
  expect((await getJson(`${api.base}/v1/markets`, added.body.data.api_key)).status).toBe(200);
  expect((await post('/keys', owner)).status).toBe(201);
  const refused = await post('/keys', owner);
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ code: 'CONFLICT' });
  expect(refused.body.error).toMatch(/3 live keys/);
  const listed = (await getJson(`${api.base}/v1/keys`, owner)).body.data;
  expect(listed.map((k: any) => k.current)).toEqual([false, false, true]);
});

test('rotate: the new key works at once and the old one through its grace only', async () => {
  const old = (await api.accounts.registerAgent('rotator')).api_key;
  const oldId = (await getJson(`${api.base}/v1/keys`, old)).body.data[0].id;
  const rotated = await post(`/keys/${oldId}/rotate`, old, { expire_previous_in_seconds: 2 });
  expect(rotated.status).toBe(201);
  const fresh = rotated.body.data.api_key as string;
  expect(rotated.body.data).toMatchObject({ rotated_from: oldId, status: 'active' });
  expect(rotated.body.data.previous).toMatchObject({ id: oldId, status: 'expiring' });
  expect((await getJson(`${api.base}/v1/markets`, fresh)).status).toBe(200);
  expect((await getJson(`${api.base}/v1/markets`, old)).status).toBe(200);
  // A key already rotated cannot be rotated again.
  expect((await post(`/keys/${oldId}/rotate`, fresh)).status).toBe(409);
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  expect((await getJson(`${api.base}/v1/markets`, old)).status).toBe(401);
  expect((await getJson(`${api.base}/v1/keys?status=all`, fresh)).body.data.map((k: any) => k.status)).toEqual(['active', 'revoked']);
});

test('revoke: refused at once; the last active key cannot be revoked; other accounts get 404', async () => {
  const first = (await api.accounts.registerAgent('revoker')).api_key;
  const second = (await post('/keys', first)).body.data;
  const firstId = (await getJson(`${api.base}/v1/keys`, first)).body.data.find((k: any) => k.current).id;
  const stranger = (await api.accounts.registerAgent('stranger')).api_key;
  expect((await post(`/keys/${firstId}/revoke`, stranger)).status).toBe(404);
  expect((await post(`/keys/${second.id}/rotate`, stranger)).status).toBe(404);
  // The calling key was cached by this request; revoking it takes effect on the very next one.
  const revoked = await post(`/keys/${firstId}/revoke`, first);
  expect(revoked.status).toBe(200);
  expect(revoked.body.data).toMatchObject({ id: firstId, status: 'revoked' });
  expect((await getJson(`${api.base}/v1/markets`, first)).status).toBe(401);
  const last = await post(`/keys/${second.id}/revoke`, second.api_key);
  expect(last.status).toBe(409);
  expect(last.body.error).toMatch(/only active key/);
  expect((await getJson(`${api.base}/v1/markets`, second.api_key)).status).toBe(200);
});

test('a rotated key in its grace period reads but cannot add, rotate or revoke keys (403)', async () => {
  // Issue 59 H4: the old (possibly leaked) key could create a key without an end and revoke the new one.
  const old = (await api.accounts.registerAgent('leaked')).api_key;
  const oldId = (await getJson(`${api.base}/v1/keys`, old)).body.data[0].id;
  const rotated = (await post(`/keys/${oldId}/rotate`, old, { expire_previous_in_seconds: 3600 })).body.data;
  expect((await getJson(`${api.base}/v1/markets`, old)).status).toBe(200);
  expect((await getJson(`${api.base}/v1/keys`, old)).status).toBe(200);
  for (const refused of [
    await post('/keys', old),
    await post(`/keys/${rotated.id}/revoke`, old),
    await post(`/keys/${rotated.id}/rotate`, old, { expire_previous_in_seconds: 0 }),
  ]) {
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    expect(refused.body.error).toMatch(/can read but not manage keys/);
  }
  // Still only the two keys, the new one active; it manages keys as before.
  expect((await getJson(`${api.base}/v1/keys`, rotated.api_key)).body.data.map((k: any) => k.status)).toEqual(['active', 'expiring']);
  expect((await post(`/keys/${oldId}/revoke`, rotated.api_key)).status).toBe(200);
});

test('another API process that still caches the key from before its rotation is refused by the store too', async () => {
  const old = (await api.accounts.registerAgent('stale-cache')).api_key;
  const oldId = (await getJson(`${api.base}/v1/keys`, old)).body.data[0].id;
  // Another API process rotates it (a write to the store this process does not hear of): this process
  // keeps the owner it cached, without an end, for up to AUTH_CACHE_TTL_MS.
  await api.control.query("UPDATE api_keys SET revoked_at = now() + interval '1 hour' WHERE id = $1", [oldId]);
  const refused = await post('/keys', old);
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatch(/rotated or revoked/);
});

test('operators revoke and rotate by key or id, the last key included', async () => {
  const key = (await api.admin.createKey('operated', '2')).api_key;
  expect((await getJson(`${api.base}/v1/trades`, key)).status).toBe(200);
  const { key: replacement, previous } = await api.admin.rotateKey({ apiKey: key }, 0);
  expect(previous.status).toBe('revoked');
  expect((await getJson(`${api.base}/v1/trades`, key)).status).toBe(401);
  expect((await getJson(`${api.base}/v1/trades`, replacement.api_key)).status).toBe(200);
  expect((await api.admin.listKeys({ keyId: replacement.id })).map((k) => k.status)).toEqual(['active', 'revoked']);
  await api.admin.revokeKey({ keyId: replacement.id });
  expect((await getJson(`${api.base}/v1/trades`, replacement.api_key)).status).toBe(401);
});

test.each([
  ['/keys/abc/revoke', 400],
  ['/keys/99999999/revoke', 404],
])('%s -> %i', async (path, status) => {
  const key = (await api.accounts.registerAgent('bad-ids')).api_key;
  expect((await post(path, key)).status).toBe(status);
});
