/**
 * Every analytics query made for a request runs under limits set in the store adapter, and a request
 * that hits one is told why: too many rows -> 400 naming what to narrow, out of time -> 503 with
 * Retry-After. Work outside a request (the pipeline) is not subject to them; a call may override one.
 */
import { toApiError } from '../../api/error-renderer.js';
import { runInRequestContext } from '../../services/shared/request-context.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { getJson } from '../support/http.js';

let api: ApiHarness;
let key: string;
beforeAll(async () => {
  api = await startApiHarness({
    database: 'query_limits',
    env: { QUERY_MAX_ROWS_TO_READ: '1000', QUERY_MAX_EXECUTION_MS: '200' },
  });
  await api.store.command(
    `INSERT INTO markets (market_id, category, status, updated_at, ingested_at)
     SELECT concat('0x', hex(number)), 'Cat', 'active', now64(3), now64(3) FROM numbers(5000)`,
  );
  key = (await api.admin.createKey('limits', '2')).api_key;
}, 60_000);
afterAll(() => api.close());

test('a request whose query would read more rows than allowed gets 400 saying what to narrow', async () => {
  const response = await getJson(`${api.base}/v1/markets/categories`, key);
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
  expect(response.body.error).toMatch(/query too broad.*narrow from\/to or filter by market or wallet/);
  // The same query outside a request (pipeline work) is not limited.
  const [row] = await api.store.query<{ n: number }>('SELECT count() AS n FROM markets FINAL');
  expect(Number(row!.n)).toBe(5000);
});

test('a query past its time limit in a request is a 503 with Retry-After; outside a request it runs', async () => {
  const slow = 'SELECT count() AS n FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 3';
  const error = await runInRequestContext({ lane: 'account:test' }, () =>
    api.store.query(slow, {}, { limits: { maxRowsToRead: 0 } }),
  ).catch((e: unknown) => e);
  const mapped = toApiError(error);
  expect(mapped).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 });
  expect(mapped.message).toMatch(/time or memory limit/);
  // A per-call override lifts one limit for that call only.
  const overridden = await runInRequestContext({ lane: 'account:test' }, () =>
    api.store.query<{ n: number }>('SELECT count() AS n FROM markets FINAL', {}, { limits: { maxRowsToRead: 0 } }),
  );
  expect(Number(overridden[0]!.n)).toBe(5000);
  // chDB keeps SET values in its session: a statement after a limited one must not inherit its limits.
  const [row] = await api.store.query<{ n: number }>('SELECT count() AS n FROM numbers(20000)');
  expect(Number(row!.n)).toBe(20000);
});

test('limits follow each statement while chDB sends only the settings its session does not hold, also after a failed statement', async () => {
  // The store sends a setting only when the session holds another value (clickhouse-store.ts
  // SessionSettings): request and pipeline statements alternate here, so each must switch the limits.
  const broad = 'SELECT count() AS n FROM markets FINAL';
  const inRequest = () => runInRequestContext({ lane: 'account:alternate' }, () => api.store.query<{ n: number }>(broad));
  const refused = async () => expect(toApiError(await inRequest().catch((e: unknown) => e))).toMatchObject({ status: 400 });
  const served = async () => expect(Number((await api.store.query<{ n: number }>(broad))[0]!.n)).toBe(5000);
  await refused();
  await served();
  await refused();
  await refused();
  await served();
  await served();
  // A statement that fails leaves the session unknown: the next ones send every setting again.
  await expect(runInRequestContext({ lane: 'account:alternate' }, () => api.store.query('SELECT * FROM no_such_table'))).rejects.toThrow(
    /no_such_table/,
  );
  await served();
  await refused();
  await expect(api.store.query('SELECT * FROM no_such_table')).rejects.toThrow(/no_such_table/);
  await refused();
  await served();
});

test('chDB reads its files with pread on every statement: requests, the pipeline, commands, and after a failed one', async () => {
  // clickhouse-store.ts CHDB_READ_SETTINGS: the default pread_threadpool started a thread per read of a
  // column's range in chDB (a leaderboard page's figures: 31-35 ms against 10, docs/POSITIONS.md at 2ee4e77).
  const method = async (inRequest: boolean) => {
    const read = () => api.store.query<{ m: string }>("SELECT getSetting('local_filesystem_read_method') AS m");
    const [row] = inRequest ? await runInRequestContext({ lane: 'account:reads' }, read) : await read();
    return row!.m;
  };
  expect(await method(true)).toBe('pread');
  expect(await method(false)).toBe('pread');
  // The session changed behind the store's back (no code of the service sends a bare SET)...
  await api.store.command("SET local_filesystem_read_method = 'pread_threadpool'");
  await expect(api.store.query('SELECT * FROM no_such_table')).rejects.toThrow(/no_such_table/);
  // ...is put right after a failed statement, when the store sends every setting again.
  expect(await method(true)).toBe('pread');
  expect(await method(false)).toBe('pread');
});

test("a browser page's parallel loads fit one key's queue while the engine is busy; past the cap is 429", async () => {
  // The pipeline holds the engine (chDB runs one statement at a time), so every request statement waits.
  const busy = api.store.query('SELECT sleep(1) AS s');
  // A page has up to 6 requests in flight (browsers' connections per host), and a market's order book
  // reads both outcome tokens at once: 12 statements of one key waiting together are all served.
  const page = Array.from({ length: 12 }, (_, i) =>
    runInRequestContext({ lane: 'account:page' }, () => api.store.query<{ n: number }>(`SELECT ${i} AS n`)),
  );
  expect((await Promise.all(page)).map((rows) => Number(rows[0]!.n))).toEqual([...Array(12).keys()]);
  await busy;

  // The cap still bounds what one key can park in the queue: the 17th waiting statement is refused.
  const held = api.store.query('SELECT sleep(1) AS s');
  const flood = Array.from({ length: 17 }, (_, i) =>
    runInRequestContext({ lane: 'account:flood' }, () => api.store.query(`SELECT ${i} AS n`)).then(
      () => 'served',
      (error: unknown) => toApiError(error),
    ),
  );
  const outcomes = await Promise.all(flood);
  await held;
  expect(outcomes.slice(0, 16)).toEqual(Array(16).fill('served'));
  expect(outcomes[16]).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
});
