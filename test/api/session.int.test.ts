/**
 * Developer sign-up and browser sessions through the HTTP API (responses validated against the
 * document): the key in an HttpOnly, SameSite=Strict cookie authenticates like the bearer header,
 * state-changing cookie requests need the CSRF token, and cross-site Origins are refused.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApiHarness, type ApiHarness } from '../support/api-harness.js';
import { getJson, postJson } from '../support/http.js';

const chdbPath = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-session-'));
let api: ApiHarness;

beforeAll(async () => {
  api = await startApiHarness({ chdbPath, database: 'session', env: { SESSION_MAX_AGE_SECONDS: '3600' } });
});
afterAll(async () => {
  await api.close();
});

async function call(
  method: string,
  route: string,
  init: { cookie?: string; csrf?: string; origin?: string; bearer?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = {};
  if (init.cookie) headers.cookie = `tapeline_session=${init.cookie}`;
  if (init.csrf !== undefined) headers['x-csrf-token'] = init.csrf;
  if (init.origin) headers.origin = init.origin;
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.base}/v1${route}`, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as any, setCookie: response.headers.get('set-cookie') };
}

const expectedCsrf = (key: string) => crypto.createHmac('sha256', key).update('tapeline csrf v1').digest('base64url');

describe('developer sign-up', () => {
  test('returns a Tier 1 developer key once; the key works and the email is stored lower-cased', async () => {
    const signUp = await postJson(`${api.base}/v1/developers/register`, { name: ' Ada ', email: ' Ada@Example.COM ' });
    expect(signUp.status).toBe(201);
    expect(signUp.body.data).toMatchObject({ name: 'Ada', email: 'ada@example.com', tier: '1' });
    const key = signUp.body.data.api_key as string;
    const session = await getJson(`${api.base}/v1/session`, key);
    expect(session.body.data).toMatchObject({
      name: 'Ada',
      email: 'ada@example.com',
      kind: 'developer',
      tier: '1',
      authenticated_by: 'bearer',
    });
    expect(session.body.data.key_hint).toBe(`${key.slice(0, 8)}…${key.slice(-4)}`);
    expect((await getJson(`${api.base}/v1/trades`, key)).status).toBe(402);
  });

  test.each([
    [{ name: 'x', email: 'not-an-address' }, /email/],
    [{ name: 'x', email: 'a@b' }, /email/],
    [{ name: '', email: 'a@b.co' }, /name/],
    [{ email: 'a@b.co' }, /name/],
    [{ name: 'x', email: 'a@b.co', tier: '3' }, /tier|additional/],
  ])('refuses %j with 400 naming the field', async (body, field) => {
    const response = await postJson(`${api.base}/v1/developers/register`, body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(response.body.error).toMatch(field);
  });
});

describe('session cookie', () => {
  let key: string;
  beforeAll(async () => {
    key = (await api.accounts.registerDeveloper('cookie user', 'c@example.com')).api_key;
  });

  test('POST /session sets an HttpOnly, SameSite=Strict cookie holding the key; an unknown key is 401 and sets nothing', async () => {
    const started = await call('POST', '/session', { body: { api_key: key } });
    expect(started.status).toBe(201);
    expect(started.setCookie).toBe(`tapeline_session=${key}; Path=/; Max-Age=3600; HttpOnly; SameSite=Strict`);
    expect(started.body.data).toMatchObject({ authenticated_by: 'cookie', csrf_token: expectedCsrf(key), expires_in_seconds: 3600 });
    const refused = await call('POST', '/session', { body: { api_key: `aif_${'A'.repeat(38)}` } });
    expect(refused.status).toBe(401);
    expect(refused.setCookie).toBeNull();
  });

  test('the cookie authenticates reads, with the same metering and access rules as a bearer key', async () => {
    const session = await call('GET', '/session', { cookie: key });
    expect(session.status).toBe(200);
    expect(session.body.data).toMatchObject({ authenticated_by: 'cookie', csrf_token: expectedCsrf(key) });
    const before = (await call('GET', '/usage', { cookie: key })).body.data.used;
    expect((await call('GET', '/markets', { cookie: key })).status).toBe(200);
    expect((await call('GET', '/usage', { cookie: key })).body.data.used).toBe(before + 1);
    const tier2 = await call('GET', '/trades', { cookie: key });
    expect(tier2.status).toBe(402);
    expect(tier2.body.code).toBe('PAYMENT_REQUIRED');
    expect((await call('GET', '/markets', { cookie: `aif_${'B'.repeat(38)}` })).status).toBe(401);
  });

  test('a state-changing cookie request needs the CSRF token: missing or wrong is 403, right goes through', async () => {
    const missing = await call('DELETE', '/session', { cookie: key });
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({ code: 'FORBIDDEN' });
    expect(missing.body.error).toMatch(/x-csrf-token/);
    const wrong = await call('DELETE', '/session', { cookie: key, csrf: expectedCsrf(`${key}x`) });
    expect(wrong.status).toBe(403);
    const other = (await api.accounts.registerDeveloper('other', 'o@example.com')).api_key;
    expect((await call('DELETE', '/session', { cookie: key, csrf: expectedCsrf(other) })).status).toBe(403);
    const right = await call('DELETE', '/session', { cookie: key, csrf: expectedCsrf(key) });
    expect(right.status).toBe(200);
    expect(right.setCookie).toBe('tapeline_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
  });

  test('a cross-site Origin is refused for cookie requests and for starting a session; same-origin passes', async () => {
    const evil = 'http://attacker.example';
    expect((await call('GET', '/usage', { cookie: key, origin: evil })).status).toBe(403);
    expect((await call('DELETE', '/session', { cookie: key, csrf: expectedCsrf(key), origin: evil })).status).toBe(403);
    const login = await call('POST', '/session', { body: { api_key: key }, origin: evil });
    expect(login.status).toBe(403);
    expect(login.setCookie).toBeNull();
    expect((await call('GET', '/usage', { cookie: key, origin: api.base })).status).toBe(200);
  });

  test('the bearer header wins over a cookie and needs no CSRF token', async () => {
    const other = (await api.accounts.registerDeveloper('bearer user', 'b@example.com')).api_key;
    const session = await call('GET', '/session', { cookie: key, bearer: other });
    expect(session.body.data).toMatchObject({ name: 'bearer user', authenticated_by: 'bearer' });
    expect((await call('DELETE', '/session', { cookie: key, bearer: other })).status).toBe(200);
  });
});

describe('usage history and refused calls', () => {
  test('counts metered calls and 402 refusals per day and lists the refusals, newest first, without query strings', async () => {
    const key = (await api.accounts.registerDeveloper('usage', 'u@example.com')).api_key;
    for (let i = 0; i < 3; i++) expect((await getJson(`${api.base}/v1/markets?limit=5`, key)).status).toBe(200);
    expect((await getJson(`${api.base}/v1/trades?limit=7`, key)).status).toBe(402);
    expect((await getJson(`${api.base}/v1/leaderboard`, key)).status).toBe(402);
    await api.meter.flush();
    await api.refusals.flush();

    const history = await getJson(`${api.base}/v1/usage/history?days=3`, key);
    expect(history.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(history.body.data).toHaveLength(3);
    expect(history.body.data.at(-1)).toEqual({ date: today, calls: 3, credits_spent: 0, refused_402: 2, refused_429: 0 });
    expect(history.body.data.slice(0, 2).every((d: any) => d.calls === 0 && d.refused_402 === 0)).toBe(true);

    const refusals = await getJson(`${api.base}/v1/usage/refusals?limit=1`, key);
    expect(refusals.body.data).toEqual([
      expect.objectContaining({ status: 402, code: 'PAYMENT_REQUIRED', method: 'GET', path: '/v1/leaderboard' }),
    ]);
    expect(refusals.body.pagination.has_more).toBe(true);
    const next = await getJson(`${api.base}/v1/usage/refusals?limit=1&cursor=${refusals.body.pagination.next_cursor}`, key);
    expect(next.body.data).toEqual([expect.objectContaining({ path: '/v1/trades', reason: expect.stringMatching(/Tier 2/) })]);
    expect(next.body.pagination).toEqual({ limit: 1, has_more: false, next_cursor: null });
  });

  test('bad parameters are 400 naming them', async () => {
    const key = (await api.accounts.registerDeveloper('usage2', 'u2@example.com')).api_key;
    const response = await getJson(`${api.base}/v1/usage/history?days=91`, key);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/days/);
  });
});

describe('429s are recorded too', () => {
  let limited: ApiHarness;
  beforeAll(async () => {
    limited = await startApiHarness({ chdbPath, database: 'session_rate', env: { RATE_TIER1_PER_SECOND: '1', RATE_BURST_FACTOR: '1' } });
  });
  afterAll(async () => {
    await limited.close();
  });

  test('a rate-limited call shows in the day count and the refusal list', async () => {
    const key = (await limited.accounts.registerDeveloper('fast', 'f@example.com')).api_key;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await getJson(`${limited.base}/v1/markets`, key)).status);
    const refused = statuses.filter((s) => s === 429).length;
    expect(refused).toBeGreaterThan(0);
    await limited.refusals.flush();
    // Wait out the bucket so the history read itself is not refused.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const today = (await getJson(`${limited.base}/v1/usage/history?days=1`, key)).body.data[0];
    expect(today.refused_429).toBe(refused);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const list = (await getJson(`${limited.base}/v1/usage/refusals`, key)).body.data;
    expect(list).toHaveLength(refused);
    expect(list[0]).toMatchObject({ status: 429, code: 'RATE_LIMITED', path: '/v1/markets' });
  });
});
