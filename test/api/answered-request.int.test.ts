/**
 * A request answered while a statement it ran beside another still waits for the analytics engine
 * (a handler that failed on one of two statements at once): the waiting one is dropped when the answer
 * goes out. It used to stay queued until the engine freed, holding a place in the account's lane that
 * the account's next calls were refused for (a CI run of the credits test: one call at a time met
 * "this key already has 2 queries waiting" 200 times in a row).
 */
import type { FairQueueStats } from '../../services/analytics/fair-queue.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { getJson, waitFor } from '../support/http.js';

let lane: ApiHarness;
beforeAll(async () => {
  // A lane of one: of the two coverage statements /trades reads at once, the second is refused (429).
  lane = await startApiHarness({ env: { QUERY_QUEUE_PER_KEY: '1' } });
}, 60_000);
afterAll(() => lane?.close());

test('the statement left waiting is dropped once the answer is sent, so it holds no place in the lane', async () => {
  const key = (await lane.admin.createKey('answered', '2')).api_key;
  const stats = () => (lane.store as unknown as { queueStats(): FairQueueStats }).queueStats();
  // The engine busy with the pipeline's own work for about 10 s: the request's statements wait.
  const busy = lane.store.query('SELECT sleepEachRow(0.5) FROM numbers(20) SETTINGS max_block_size = 1');
  await waitFor(async () => stats().running === 1, 5_000, 'the pipeline statement to run', 10);
  const refused = await getJson(`${lane.base}/v1/trades?limit=1`, key);
  expect(refused.status).toBe(429);
  expect(refused.body.error).toMatch(/queries waiting/);
  // The refused call's sibling left the queue when its answer went out, not when the engine freed.
  await waitFor(async () => stats().abandoned === 1, 2_000, "the answered request's waiting statement to be dropped", 10);
  expect(stats()).toMatchObject({ running: 1, queued: 0 });
  await busy;
  expect((await getJson(`${lane.base}/v1/trades?limit=1`, key)).status).toBe(200);
});
