/** services/streams/message-text.ts writes the same bytes as JSON.stringify, whatever the message and whether its data is shared. */
import type { StreamServerMessage } from '../../services/http/types.generated.js';
import { share } from '../../services/streams/memo.js';
import { messageText } from '../../services/streams/message-text.js';

/** A presentation many subscriptions send (its text is kept on it), and one only this message sends. */
const data = { trade_id: 'x"1', price: 0.5, nested: { a: [1, null, 'é'] }, fee_micro: null };
share(data);
const own = { trade_id: 'y', price: 0.25 };
const messages = [
  { type: 'trade', subscription: 's1', channel: 'trades', cursor: 'c', data },
  { type: 'trade', subscription: 's2', channel: 'trades', cursor: 'd', data },
  { type: 'book_delta', subscription: 's1', channel: 'book', cursor: 'c', sequence: 4, hash: null, data },
  { data },
  { type: 'heartbeat', subscription: 's1', cursor: 'c', time: '2026-12-03T00:00:00.000Z' },
  { data, type: 'trade' },
  { type: 'x', data: null },
  { type: 'x', data: [1, 2] },
  { type: 'trade', subscription: 's3', channel: 'trades', cursor: 'e', data: own },
] as unknown as StreamServerMessage[];

test.each(messages.map((m) => [JSON.stringify(m), m]))('%s', (_name, message) => {
  expect(messageText(message)).toBe(JSON.stringify(message));
  // Twice: the second time the data's text is the one kept.
  expect(messageText(message)).toBe(JSON.stringify(message));
});
