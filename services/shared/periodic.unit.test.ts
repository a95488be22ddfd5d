import { runPeriodically } from './periodic.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

test('stop() aborts a long run at its next check and waits for nothing else; the abort is not reported as an error', async () => {
  const errors: unknown[] = [];
  let steps = 0;
  let finished = false;
  const task = runPeriodically(
    async (signal) => {
      // A run of 10,000 steps that checks the signal between them; a stop that waited for it would see them all.
      for (let i = 0; i < 10_000; i++) {
        signal.throwIfAborted();
        steps += 1;
        await tick();
      }
      finished = true;
    },
    60_000,
    (error) => errors.push(error),
  );
  while (steps < 3) await tick();
  await task.stop();
  expect(finished).toBe(false);
  expect(steps).toBeLessThan(100);
  expect(errors).toEqual([]);
});

test('an error of a run that was not stopped is reported, and the next run still happens', async () => {
  const errors: unknown[] = [];
  let runs = 0;
  const task = runPeriodically(
    async () => {
      runs += 1;
      if (runs === 1) throw new Error('first run failed');
    },
    10,
    (error) => errors.push(error),
  );
  while (runs < 2) await tick();
  await task.stop();
  expect(errors).toEqual([new Error('first run failed')]);
});
