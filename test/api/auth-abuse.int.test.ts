/**
 * Self-registration is limited per client address and in total; failed authentication per address
 * and per network (/24), never refusing a valid key; made-up keys with a valid checksum cost one
 * lookup each, not one per request. Clients are played from distinct loopback addresses (127.x.y.z,
 * all loopback on Linux), all contacting 127.0.0.1.
 */
import { generateApiKey } from '../../services/control/api-keys.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { requestFrom } from '../support/http.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiHarness({
    database: 'auth_abuse',
    env: { REGISTRATIONS_PER_IP_PER_HOUR: '3', REGISTRATIONS_PER_HOUR: '5', AUTH_FAILURES_PER_IP_PER_MINUTE: '10' },
  });
}, 60_000);
afterAll(() => api.close());

const register = (from: string, name: string) => requestFrom(from, `${api.base}/v1/agents/register`, { body: { name } });

test('registration: 3 per address, 5 in total per hour; the refusal is 429 with Retry-After', async () => {
  const fromA = [];
  for (let i = 0; i < 5; i++) fromA.push((await register('127.0.0.11', `a${i}`)).status);
  expect(fromA).toEqual([201, 201, 201, 429, 429]);
  const refused = await register('127.0.0.11', 'again');
  expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
  expect(refused.body.error).toMatch(/3 registrations per hour from one address/);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  // Another address has its own allowance, until the service-wide cap (5) is reached.
  expect((await register('127.0.0.12', 'b0')).status).toBe(201);
  expect((await register('127.0.0.12', 'b1')).status).toBe(201);
  const capped = await register('127.0.0.13', 'c0');
  expect(capped.status).toBe(429);
  expect(capped.body.error).toMatch(/hourly capacity/);
  // Registrations that were refused created nothing.
  const [row] = await api.control.query<{ n: string }>("SELECT count(*)::text AS n FROM accounts WHERE kind = 'agent'");
  expect(Number(row!.n)).toBe(5);
});

test('a made-up key with a valid checksum costs one lookup, however often it is sent', async () => {
  const madeUp = generateApiKey();
  const before = api.api.handler.owners.lookupCount;
  for (let i = 0; i < 5; i++) expect((await requestFrom('127.0.0.21', `${api.base}/v1/markets`, { apiKey: madeUp })).status).toBe(401);
  expect(api.api.handler.owners.lookupCount - before).toBe(1);
  // A malformed key (bad checksum) costs none.
  const typo = `${madeUp.slice(0, -1)}${madeUp.endsWith('A') ? 'B' : 'A'}`;
  expect((await requestFrom('127.0.0.21', `${api.base}/v1/markets`, { apiKey: typo })).status).toBe(401);
  expect(api.api.handler.owners.lookupCount - before).toBe(1);
});

test('failed authentications from one address: 429 past the limit; valid keys from it and other networks unaffected', async () => {
  const good = (await api.admin.createKey('innocent', '1')).api_key;
  expect((await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: good })).status).toBe(200);
  const statuses = [];
  for (let i = 0; i < 14; i++)
    statuses.push((await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: generateApiKey() })).status);
  expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
  expect(statuses.slice(10)).toEqual(Array(4).fill(429));
  const throttled = await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: generateApiKey() });
  expect(throttled.status).toBe(429);
  expect(throttled.body.error).toMatch(/failed authentications from this address \(AUTH_FAILURES_PER_IP_PER_MINUTE: 10\)/);
  expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
  // A made-up key sent again costs no lookup (remembered as unknown), throttled or not.
  const repeated = generateApiKey();
  await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: repeated });
  const lookups = api.api.handler.owners.lookupCount;
  expect((await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: repeated })).status).toBe(429);
  expect(api.api.handler.owners.lookupCount).toBe(lookups);
  // The address's known key keeps working, and so does a valid key it never used before; another address is not throttled.
  expect((await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: good })).status).toBe(200);
  const fresh = (await api.admin.createKey('fresh', '1')).api_key;
  expect((await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: fresh })).status).toBe(200);
  expect((await requestFrom('127.0.0.32', `${api.base}/v1/markets`, { apiKey: generateApiKey() })).status).toBe(401);
});

test('walking a /24 meets the per-network limit (AUTH_FAILURES_PER_PREFIX_PER_MINUTE, default 10 x per address)', async () => {
  // 10 per address, 100 per network: 12 addresses of 127.0.3.0/24 x 9 failures each stay under each address's limit.
  const statuses = new Map<number, number>();
  for (let host = 1; host <= 12; host++)
    for (let i = 0; i < 9; i++) {
      const { status } = await requestFrom(`127.0.3.${host}`, `${api.base}/v1/markets`, { apiKey: generateApiKey() });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  expect(Object.fromEntries(statuses)).toEqual({ 401: 100, 429: 8 });
  const refused = await requestFrom('127.0.3.200', `${api.base}/v1/markets`, { apiKey: generateApiKey() });
  expect(refused.body.error).toMatch(/from this network \(AUTH_FAILURES_PER_PREFIX_PER_MINUTE: 100 per \/24 or \/64\)/);
  // Another network is not affected.
  expect((await requestFrom('127.0.4.1', `${api.base}/v1/markets`, { apiKey: generateApiKey() })).status).toBe(401);
});

test('no one can lock valid keys out: a burst of made-up keys from 21 addresses leaves every valid key and web sign-in working', async () => {
  // Issue 59 H1: 31 made-up keys from each of 21 addresses (651 failures, past the old service-wide
  // cap of 20 x the per-address limit) answered 429 to every key not already cached, for a minute.
  const valid = [(await api.admin.createKey('victim-a', '1')).api_key, (await api.admin.createKey('victim-b', '1')).api_key];
  const attack = await Promise.all(
    Array.from({ length: 21 }, async (_, host) => {
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++)
        statuses.push((await requestFrom(`127.0.5.${host + 1}`, `${api.base}/v1/markets`, { apiKey: generateApiKey() })).status);
      return statuses;
    }),
  );
  expect(attack.flat().every((status) => status === 401 || status === 429)).toBe(true);
  // Never looked up before (not in the owner cache), from another network and from an attacking address.
  expect((await requestFrom('127.0.6.1', `${api.base}/v1/markets`, { apiKey: valid[0] })).status).toBe(200);
  expect((await requestFrom('127.0.5.1', `${api.base}/v1/markets`, { apiKey: valid[1] })).status).toBe(200);
  const victim = (await api.admin.createKey('victim-c', '1')).api_key;
  const signIn = await requestFrom('127.0.6.2', `${api.base}/v1/session`, { body: { api_key: victim } });
  expect(signIn.status).toBe(201);
});
