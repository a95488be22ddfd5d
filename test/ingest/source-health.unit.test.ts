/** Source health: degraded marks and long-job progress, as /v1/health reports them. */
import { SourceHealth } from '../../services/ingest/source-health.js';

test('degraded until recovered, with the reason', () => {
  const health = new SourceHealth(() => 1_000);
  health.register('data.trades', 15_000);
  health.degraded('data.trades', 'trade gap being backfilled');
  expect(health.snapshot()[0]).toMatchObject({ degraded: true, degraded_reason: 'trade gap being backfilled' });
  health.recovered('data.trades');
  expect(health.snapshot()[0]).toMatchObject({ degraded: false, degraded_reason: null });
});

test('progress: records per second over the job so far, fixed once finished', () => {
  let now = 10_000;
  const health = new SourceHealth(() => now);
  health.progress('gamma.catalog-sync', { phase: 'initial: markets closed=true', completed: 3_000, startedMs: 8_000 });
  // 3,000 records in 2 s.
  expect(health.snapshot()[0]!.progress).toEqual({
    phase: 'initial: markets closed=true',
    completed: 3_000,
    total: null,
    started_at: new Date(8_000).toISOString(),
    finished_at: null,
    per_second: 1_500,
  });
  health.progress('gamma.catalog-sync', { phase: 'initial sync done', completed: 10_000, startedMs: 8_000, finished: true });
  now = 60_000;
  expect(health.snapshot()[0]!.progress).toMatchObject({ finished_at: new Date(10_000).toISOString(), per_second: 5_000 });
});

test('records counted along a long run do not claim success', () => {
  const health = new SourceHealth(() => 5_000);
  health.counted('gamma.catalog-sync', 100, 2);
  expect(health.snapshot()[0]).toMatchObject({ records_published: 100, records_dead_lettered: 2, last_success_at: null, lag_ms: null });
});

test('a poll with nothing to read is an attempt, not a success: the source is not called fresh', () => {
  const health = new SourceHealth(() => 5_000);
  health.register('data.wallets', 600_000);
  health.idle('data.wallets');
  expect(health.snapshot()[0]).toMatchObject({ last_attempt_at: new Date(5_000).toISOString(), last_success_at: null, fresh: null });
  health.succeeded('data.wallets', 3, 0);
  expect(health.snapshot()[0]).toMatchObject({ fresh: true });
});
