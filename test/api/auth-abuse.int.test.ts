/**
 * Self-registration and failed authentication are limited per client address and in total, and
 * made-up keys with a valid checksum cost one lookup each, not one per request. Clients are played
 * from distinct loopback addresses (127.0.0.x), all contacting 127.0.0.1.
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

test('failed authentications from one address: 429 past the limit, without lookups; known keys and other addresses unaffected', async () => {
  const good = (await api.admin.createKey('innocent', '1')).api_key;
  expect((await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: good })).status).toBe(200);
  const statuses = [];
  for (let i = 0; i < 14; i++)
    statuses.push((await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: generateApiKey() })).status);
  expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
  expect(statuses.slice(10)).toEqual(Array(4).fill(429));
  const lookups = api.api.handler.owners.lookupCount;
  const throttled = await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: generateApiKey() });
  expect(throttled.status).toBe(429);
  expect(throttled.body.error).toMatch(/failed authentications from this address/);
  expect(api.api.handler.owners.lookupCount).toBe(lookups);
  // The address's known key keeps working; another address is not throttled.
  expect((await requestFrom('127.0.0.31', `${api.base}/v1/markets`, { apiKey: good })).status).toBe(200);
  expect((await requestFrom('127.0.0.32', `${api.base}/v1/markets`, { apiKey: generateApiKey() })).status).toBe(401);
});
