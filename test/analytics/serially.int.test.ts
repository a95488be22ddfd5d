/**
 * `serially` on chDB: a section's statements take one turn of the engine, so a request's read that
 * arrives between them (and would go first, its lane being the lighter) waits until the section ends;
 * statements the section does not await still run one at a time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FairQueueStats } from '../../services/analytics/fair-queue.js';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { runInRequestContext } from '../../services/shared/request-context.js';
import { waitFor } from '../support/http.js';

let store: AnalyticsStore;
beforeAll(async () => {
  store = await openChdbStore({ path: fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-serially-')), database: 'serially' });
});
afterAll(() => store.close());

const stats = () => (store as unknown as { queueStats(): FairQueueStats }).queueStats();
const read = (order: string[], name: string) =>
  runInRequestContext({ lane: `reader-${name}` }, () => store.query('SELECT 1')).then(() => void order.push(name));

test("a request's read waits for the whole section; alone, the same statements let it in between", async () => {
  const sequence = async (order: string[]) => {
    await store.query('SELECT sleepEachRow(0.1) FROM numbers(3) SETTINGS max_block_size = 1');
    order.push('delete');
    await store.query('SELECT 1');
    order.push('insert');
  };
  const separate: string[] = [];
  const loose = sequence(separate);
  await waitFor(async () => stats().running === 1, 5_000, 'the first statement to run', 5);
  const looseRead = read(separate, 'read');
  await Promise.all([loose, looseRead]);
  expect(separate).toEqual(['delete', 'read', 'insert']);

  const together: string[] = [];
  const section = store.serially(() => sequence(together));
  await waitFor(async () => stats().running === 1, 5_000, 'the section to run', 5);
  const sectionRead = read(together, 'read');
  await Promise.all([section, sectionRead]);
  expect(together).toEqual(['delete', 'insert', 'read']);
});

test('statements a section starts without awaiting run one after another, and a failed one fails only its caller', async () => {
  const results = await store.serially(() =>
    Promise.allSettled([
      store.query<{ n: number }>('SELECT sleepEachRow(0.05) AS n FROM numbers(2) SETTINGS max_block_size = 1'),
      store.query('SELECT no_such_column FROM numbers(1)'),
      store.query<{ n: string }>('SELECT toString(count()) AS n FROM numbers(5)'),
    ]),
  );
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((results[2] as PromiseFulfilledResult<Array<{ n: string }>>).value).toEqual([{ n: '5' }]);
  expect(stats()).toMatchObject({ running: 0, queued: 0 });
});
