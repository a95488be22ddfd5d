import { takingTurns } from '../../services/copy/copy-engine.js';
import type { CopySubscription } from '../../services/copy/copy-subscriptions.js';

const sub = (id: number, accountId: string) => ({ id: String(id), accountId }) as CopySubscription;

test('a fill fans out with accounts taking turns, so one account with many subscriptions does not go first for all of them', () => {
  const flood = [1, 2, 3, 4, 5].map((id) => sub(id, 'a'));
  const order = takingTurns([...flood, sub(9, 'b'), sub(7, 'c')]).map((s) => `${s.accountId}${s.id}`);
  expect(order).toEqual(['a1', 'c7', 'b9', 'a2', 'a3', 'a4', 'a5']);
  expect(takingTurns([])).toEqual([]);
});
