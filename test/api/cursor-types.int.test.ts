/**
 * A cursor comes back from the client, and its fingerprint is computed from public query
 * parameters, so anyone can craft one. Every control-store listing binds its cursor to a decimal
 * row id: a crafted key that is not one is a 400, never a `::bigint` cast failing in the store (500)
 * (issue 59, low).
 */
import { encodeCursor, queryFingerprint } from '../../services/http/cursor.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { requestJson } from '../support/http.js';

let h: ApiHarness;

beforeAll(async () => {
  h = await startApiHarness({});
}, 60_000);
afterAll(() => h?.close());

async function register(name: string): Promise<string> {
  const response = await fetch(`${h.base}/v1/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  return ((await response.json()) as { data: { api_key: string } }).data.api_key;
}

const LISTINGS: Array<{ path: string; filters: Record<string, unknown>; key: 'agent' | 'tier2' }> = [
  { path: '/copy/subscriptions', filters: {}, key: 'tier2' },
  { path: '/copy/intents', filters: {}, key: 'tier2' },
  { path: '/strategies', filters: {}, key: 'tier2' },
  { path: '/usage/refusals', filters: {}, key: 'agent' },
  { path: '/fees/ledger', filters: { state: 'all' }, key: 'agent' },
  { path: '/paper/orders?epoch=1', filters: { status: 'all', epoch: 1 }, key: 'agent' },
  { path: '/paper/fills?epoch=1', filters: { epoch: 1 }, key: 'agent' },
  { path: '/paper/settlements?epoch=1', filters: { epoch: 1 }, key: 'agent' },
];

test.each(LISTINGS)('$path: a crafted cursor key that is not a row id is a 400', async ({ path, filters, key }) => {
  const apiKey = key === 'agent' ? await register('cursor-crafter') : (await h.admin.createKey('cursor-crafter', '2')).api_key;
  const separator = path.includes('?') ? '&' : '?';
  for (const crafted of [['abc'], ['1e3'], ['-1'], ['99999999999999999999']]) {
    const cursor = encodeCursor(crafted, queryFingerprint(filters));
    const response = await requestJson('GET', `${h.base}/v1${path}${separator}cursor=${cursor}`, apiKey);
    expect({ crafted, status: response.status, error: response.body.error }).toEqual({
      crafted,
      status: 400,
      error: 'cursor: not a cursor issued by this API',
    });
  }
});
