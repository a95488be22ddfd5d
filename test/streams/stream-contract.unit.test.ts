/**
 * test/support/stream-contract.ts, the check every stream test client applies to what it receives:
 * it passes the messages the service sends and refuses one with an undeclared field, a wrong type, a
 * missing field or a type the document does not send, so the integration tests' check can fail.
 */
import { streamMessageProblem } from '../support/stream-contract.js';

const CURSOR = 'eyJ0cmFkZXMiOlswXX0';
const trade = {
  type: 'trade',
  subscription: 's1',
  channel: 'trades',
  cursor: CURSOR,
  data: {
    trade_id: 't-1',
    market_id: '0xabc',
    market_title: 'Will it rain?',
    wallet: '0x1111111111111111111111111111111111111111',
    role: 'taker',
    side: 'buy',
    outcome: 'YES',
    outcome_index: 0,
    price: 0.42,
    size_shares: 10,
    size_usdc: 4.2,
    size_shares_micro: '10000000',
    size_usdc_micro: '4200000',
    fee_micro: null,
    fee_asset: null,
    timestamp: '2026-01-02T03:04:05.000Z',
    block_number: null,
    log_index: null,
    tx_hash: '0xdef',
    origin: 'data_api',
    source: 'simulator',
  },
};

test.each(['websocket', 'sse'] as const)('%s: the messages the service sends pass', (transport) => {
  expect(streamMessageProblem(transport, trade)).toBeNull();
  expect(streamMessageProblem(transport, { type: 'subscribed', subscription: 's1', channel: 'trades', cursor: CURSOR })).toBeNull();
  expect(
    streamMessageProblem(transport, { type: 'heartbeat', subscription: 's1', cursor: CURSOR, time: '2026-01-02T03:04:05.000Z' }),
  ).toBeNull();
  expect(
    streamMessageProblem(transport, {
      type: 'error',
      code: 'bad_request',
      message: 'filters.side: must be buy or sell',
      parameter: 'filters.side',
      subscription: null,
      cursor: null,
    }),
  ).toBeNull();
});

test('an undeclared field, a wrong type or a missing field fails, naming the schema and the place', () => {
  expect(streamMessageProblem('websocket', { ...trade, extra: 1 })).toMatch(
    /StreamTradeMessage of api\/asyncapi.yaml:[\s\S]*must NOT have additional properties.*"additionalProperty":"extra"/,
  );
  expect(streamMessageProblem('sse', { ...trade, data: { ...trade.data, price: '0.42' } })).toMatch(/\/data\/price must be number/);
  const { cursor: _, ...noCursor } = trade;
  expect(streamMessageProblem('sse', noCursor)).toMatch(/must have required property 'cursor'/);
  expect(streamMessageProblem('websocket', { ...trade, channel: 'fills' })).toMatch(/\/channel must be equal to one of the allowed values/);
});

test('a type the document does not send there fails: a client frame, an unknown type, no type', () => {
  expect(streamMessageProblem('websocket', { type: 'subscribe', channel: 'trades' })).toMatch(/none of the messages/);
  expect(streamMessageProblem('sse', { type: 'slow_consumer', subscription: 'sse' })).toMatch(/none of the messages/);
  expect(streamMessageProblem('sse', ['not', 'a', 'message'])).toMatch(/none of the messages/);
});
