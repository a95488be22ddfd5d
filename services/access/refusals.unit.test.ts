/**
 * The refused-call log under a flood: every refusal is counted per day, but an account itemises at
 * most the number of refusals kept per account in each flush interval, so a flood costs a bounded
 * number of rows per flush.
 */
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';
import { RefusalLog } from './refusals.js';

/** Records the statements a flush sends (the SQL itself runs against PGlite in the integration tests). */
function recordingStore(): ControlStore & { statements: Array<{ sql: string; params: unknown[] }> } {
  const statements: Array<{ sql: string; params: unknown[] }> = [];
  const executor: SqlExecutor = {
    async query<Row>(sql: string, params: unknown[] = []): Promise<Row[]> {
      statements.push({ sql, params });
      return [];
    },
  };
  return { ...executor, statements, transaction: (work) => work(executor), close: async () => {} };
}

const refusal = (accountId: string, i: number) => ({
  accountId,
  status: 429 as const,
  code: 'RATE_LIMITED',
  method: 'GET',
  path: `/v1/markets/${i}`,
  reason: 'rate limit',
});

test('a flood from one account: all counted, only `keepPerAccount` itemised per flush; other accounts keep theirs', async () => {
  const store = recordingStore();
  const log = new RefusalLog(store, { flushIntervalMs: 60_000, keepPerAccount: 5, clock: () => Date.UTC(2026, 0, 2, 12) });
  for (let i = 0; i < 1_000; i++) log.record(refusal('1', i));
  for (let i = 0; i < 3; i++) log.record(refusal('2', i));
  await log.flush();

  const counters = store.statements.filter((s) => s.sql.includes('INSERT INTO usage_counters'));
  expect(counters.map((s) => s.params)).toEqual([
    ['1', '2026-01-02', 0, 1_000],
    ['2', '2026-01-02', 0, 3],
  ]);
  const [items] = store.statements.filter((s) => s.sql.includes('INSERT INTO usage_refusals'));
  const accounts = items!.params[0] as string[];
  expect(accounts.filter((a) => a === '1')).toHaveLength(5);
  expect(accounts.filter((a) => a === '2')).toHaveLength(3);
  // The first five of the interval (the per-day count has the rest).
  expect((items!.params[5] as string[]).slice(0, 5)).toEqual([
    '/v1/markets/0',
    '/v1/markets/1',
    '/v1/markets/2',
    '/v1/markets/3',
    '/v1/markets/4',
  ]);

  // The next interval itemises again.
  store.statements.length = 0;
  for (let i = 0; i < 10; i++) log.record(refusal('1', i));
  await log.flush();
  const [next] = store.statements.filter((s) => s.sql.includes('INSERT INTO usage_refusals'));
  expect(next!.params[0]).toEqual(['1', '1', '1', '1', '1']);
});
