/**
 * A request its caller closes while its query waits for the analytics engine (chDB runs one statement
 * at a time): the query is dropped unrun, so a client that sends a burst and hangs up does not keep its
 * lane full or the engine busy; it is counted in tapeline_analytics_queries_abandoned_total.
 */
import type { FairQueueStats } from '../../services/analytics/fair-queue.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { getJson, waitFor } from '../support/http.js';

let h: ApiHarness;
// Lets go of the engine's turn the test holds (also when the test fails, so the harness can close).
let release: () => void = () => undefined;
beforeAll(async () => {
  h = await startApiHarness({});
}, 60_000);
afterAll(() => {
  release();
  return h.close();
});

test("a closed request's waiting query never runs; the next request is answered", async () => {
  const key = (await h.admin.createKey('gone', '1')).api_key;
  const stats = () => (h.store as unknown as { queueStats(): FairQueueStats }).queueStats();
  // The engine's turn held by the pipeline's own work (a statement, then a wait) until the test lets it
  // go, not for a fixed time: on a loaded machine the request may reach the queue only seconds later.
  const released = new Promise<void>((resolve) => (release = resolve));
  const busy = h.store.serially(async () => {
    await h.store.query('SELECT 1');
    await released;
  });
  await waitFor(async () => stats().running === 1, 5_000, 'the pipeline work to hold the engine', 10);
  const caller = new AbortController();
  const request = fetch(`${h.base}/v1/markets`, { headers: { authorization: `Bearer ${key}` }, signal: caller.signal });
  await waitFor(async () => stats().queued > 0, 30_000, "the request's query to wait", 50);
  const waiting = stats().queued;
  caller.abort();
  await expect(request).rejects.toThrow();
  await waitFor(async () => stats().abandoned === waiting, 5_000, 'the waiting queries to be dropped', 10);
  expect(stats()).toMatchObject({ running: 1, queued: 0 });
  release();
  await busy;
  const answered = await getJson(`${h.base}/v1/markets`, key);
  expect(answered.status).toBe(200);
  expect(stats().abandoned).toBe(waiting);
});
