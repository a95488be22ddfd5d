/**
 * The book channel reads books and changes from two topics in turn, so it sees them in an order that
 * is not the log's: per token, what it sends only moves a client's book forward in time. A change at
 * or before the last book sent is in that book; a book older than the last change sent would undo it;
 * a stored change sent on subscribe is not sent again.
 */
import { bookDeltas, bookSnapshots } from '../../services/read-models/order-books/index.js';
import { type BookFilters, bookChannel } from '../../services/streams/book-channel.js';
import { bookDelta, bookSnapshot, conditionId, T0 } from '../support/events.js';

const market = conditionId(5);
const at = (s: number) => T0 + s * 1_000;
const filters = (): BookFilters => ({ market, assets: ['1', '2'], sent: new Map() });
const snap = (asset: string, s: number) => ({
  stream: bookSnapshots,
  event: bookSnapshot({ market_id: market, asset_id: asset, hash: `b${s}`, timestamp_ms: at(s) }),
});
const change = (asset: string, s: number, id = `d${asset}-${s}`) => ({
  stream: bookDeltas,
  event: bookDelta({ event_id: id, market_id: market, asset_id: asset, timestamp_ms: at(s) }),
});
const sent = (f: BookFilters, records: Array<ReturnType<typeof snap> | ReturnType<typeof change>>) =>
  records.flatMap(({ stream, event }) => {
    const message = bookChannel.select(stream, event, f);
    return message ? [`${message.type === 'book_snapshot' ? 'S' : 'D'}${event.asset_id}@${(event.timestamp_ms - T0) / 1000}`] : [];
  });

test('a change at or before the last book sent is dropped; one after it is sent', () => {
  expect(sent(filters(), [snap('1', 5), change('1', 4), change('1', 5), change('1', 6)])).toEqual(['S1@5', 'D1@6']);
});

test('a book older than the last change sent is dropped; one at its instant or later is sent', () => {
  expect(sent(filters(), [change('1', 6), snap('1', 5), snap('1', 6), change('1', 6), change('1', 7), snap('1', 8)])).toEqual([
    'D1@6',
    'S1@6',
    'D1@7',
    'S1@8',
  ]);
});

test('each token keeps its own time; another market and unwanted tokens are dropped', () => {
  const f: BookFilters = { market, assets: ['1'], sent: new Map() };
  const other = { stream: bookDeltas, event: bookDelta({ market_id: conditionId(6), asset_id: '1', timestamp_ms: at(9) }) };
  expect(sent(f, [snap('1', 5), change('2', 4), other, change('1', 6)])).toEqual(['S1@5', 'D1@6']);
  expect(sent(filters(), [snap('1', 5), change('2', 4), change('1', 4)])).toEqual(['S1@5', 'D2@4']);
});

test('a stored change sent on subscribe is not sent again from the log', () => {
  const f = filters();
  f.sent.set('1', { bookMs: at(5), lastMs: at(6), ids: new Set(['stored']) });
  expect(sent(f, [change('1', 6, 'stored'), change('1', 6, 'live')])).toEqual(['D1@6']);
});
