/**
 * Developer sign-up creates accounts like agent registration does, so it counts against the same
 * per-address and service-wide hourly limits (one pair of counters in the control store), and
 * turning a key into a browser session is throttled like any failed authentication. Clients are
 * played from distinct loopback addresses (127.0.0.x), all contacting 127.0.0.1.
 */
import { generateApiKey } from '../../services/control/api-keys.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { requestFrom } from '../support/http.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiHarness({
    database: 'signup_limits',
    env: { REGISTRATIONS_PER_IP_PER_HOUR: '3', REGISTRATIONS_PER_HOUR: '5', AUTH_FAILURES_PER_IP_PER_MINUTE: '4' },
  });
}, 60_000);
afterAll(() => api.close());

const signUp = (from: string, name: string, email = `${name}@example.com`) =>
  requestFrom(from, `${api.base}/v1/developers/register`, { body: { name, email } });
const registerAgent = (from: string, name: string) => requestFrom(from, `${api.base}/v1/agents/register`, { body: { name } });

async function accountsOfKind(kind: 'agent' | 'developer'): Promise<number> {
  const [row] = await api.control.query<{ n: string }>('SELECT count(*)::text AS n FROM accounts WHERE kind = $1', [kind]);
  return Number(row!.n);
}

test('sign-ups and agent registrations share 3 per address and 5 in total per hour; refusals are 429 with Retry-After', async () => {
  // One address: two agents and one developer use up its 3; both doors are then shut for it.
  expect((await registerAgent('127.0.0.41', 'agent-a0')).status).toBe(201);
  expect((await registerAgent('127.0.0.41', 'agent-a1')).status).toBe(201);
  expect((await signUp('127.0.0.41', 'dev-a0')).status).toBe(201);
  const refused = await signUp('127.0.0.41', 'dev-a1');
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
  expect(refused.body.error).toMatch(/3 registrations per hour from one address/);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await registerAgent('127.0.0.41', 'agent-a2')).status).toBe(429);

  // A body the document refuses is a 400 and does not use up the allowance.
  for (let i = 0; i < 4; i++) expect((await signUp('127.0.0.42', `dev-b${i}`, 'not-an-address')).status).toBe(400);
  expect((await signUp('127.0.0.42', 'dev-b0')).status).toBe(201);
  expect((await signUp('127.0.0.42', 'dev-b1')).status).toBe(201);

  // Five accounts made in this hour: the service-wide cap refuses a fresh address too.
  const capped = await signUp('127.0.0.43', 'dev-c0');
  expect(capped.status).toBe(429);
  expect(capped.body.error).toMatch(/hourly capacity/);
  expect(Number(capped.headers.get('retry-after'))).toBeGreaterThan(0);

  // Refused attempts created nothing.
  expect(await accountsOfKind('agent')).toBe(2);
  expect(await accountsOfKind('developer')).toBe(3);
});

test('guessing keys through POST /session is throttled like bearer keys; a known key still signs in', async () => {
  const session = (from: string, apiKey: string) => requestFrom(from, `${api.base}/v1/session`, { body: { api_key: apiKey } });
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await session('127.0.0.51', generateApiKey())).status);
  expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  const good = (await api.admin.createKey('session user', '1')).api_key;
  // A key this process already knows (used from elsewhere) is not held up by the address's failures.
  expect((await requestFrom('127.0.0.53', `${api.base}/v1/session`, { apiKey: good })).status).toBe(200);
  expect((await session('127.0.0.51', good)).status).toBe(201);
  // Another address is unaffected.
  expect((await session('127.0.0.52', generateApiKey())).status).toBe(401);
});

test('made-up session cookies on /app pages count as failed authentications; a valid key is verified whatever the address failed', async () => {
  const shell = (from: string, apiKey: string) =>
    requestFrom(from, `${api.base}/app/usage`, { headers: { cookie: `tapeline_session=${apiKey}`, accept: 'text/html' } });
  for (let i = 0; i < 6; i++) {
    const response = await shell('127.0.0.61', generateApiKey());
    expect(response.status).toBe(200);
    expect(response.raw).toContain('<meta name="tapeline-session" content="none">');
    // Each dead cookie is cleared.
    expect(response.headers.get('set-cookie')).not.toBeNull();
  }
  // They counted: the address is past its limit (4) for made-up bearer keys too.
  expect((await requestFrom('127.0.0.61', `${api.base}/v1/markets`, { apiKey: generateApiKey() })).status).toBe(429);
  // A valid key this process never looked up still opens the signed-in page from that address (issue 59 H1).
  const good = (await api.admin.createKey('shell user', '1')).api_key;
  expect((await shell('127.0.0.61', good)).raw).toContain('<meta name="tapeline-session" content="active">');
});
