/** KeptFailure (kept-failure.ts): what the valuation pass's merges rely on when one fails. */
import { KeptFailure } from './kept-failure.js';

describe('KeptFailure', () => {
  test('a step that throws is reported by attempt and its error kept until taken once; the latest replaces an earlier one', async () => {
    const failures = new KeptFailure();
    expect(await failures.attempt(async () => {})).toBe(true);
    expect(failures.take()).toBeUndefined();
    const first = new Error('first');
    const second = new Error('second');
    expect(
      await failures.attempt(async () => {
        throw first;
      }),
    ).toBe(false);
    expect(
      await failures.attempt(async () => {
        throw second;
      }),
    ).toBe(false);
    // A later success does not clear what failed before it was taken.
    expect(await failures.attempt(async () => {})).toBe(true);
    expect(failures.take()).toBe(second);
    expect(failures.take()).toBeUndefined();
  });
});
