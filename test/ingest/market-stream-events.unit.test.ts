/**
 * Market-channel events beyond books and prices: `tick_size_change` republishes the token's book with
 * the new tick size, `new_market` hands its tokens to the caller (the ingest service follows them
 * and fetches the market's metadata at once). No socket: frames are fed to the stream directly.
 */
import { pino } from 'pino';
import { MarketStream } from '../../services/ingest/market-stream.js';
import type { EventPublisher } from '../../services/events/publisher.js';
import { SourceHealth } from '../../services/ingest/source-health.js';
import type { BookSnapshot } from '../../services/events/types.js';

const MARKET = `0x${'ab'.repeat(32)}`;
const YES = '1'.repeat(70);
const NO = '2'.repeat(70);

function streamWithCapture(onNewMarket?: (ids: string[]) => void) {
  const published: Array<{ topic: string; events: unknown[] }> = [];
  const publisher = {
    publish: async (topic: string, events: unknown[]) => {
      published.push({ topic, events });
      return events.length;
    },
    deadLetter: async () => undefined,
  } as unknown as EventPublisher;
  const stream = new MarketStream({
    url: 'ws://127.0.0.1:1/unused',
    publisher,
    health: new SourceHealth(),
    logger: pino({ level: 'silent' }),
    source: 'simulator',
    resync: async () => [],
    onNewMarket,
  });
  const books = () => published.filter((p) => p.topic === 'bookSnapshots').flatMap((p) => p.events as BookSnapshot[]);
  return { stream, books };
}

const book = {
  event_type: 'book',
  market: MARKET,
  asset_id: YES,
  hash: 'abcdef0123',
  timestamp: '1767225600000',
  tick_size: '0.01',
  bids: [{ price: '0.48', size: '10' }],
  asks: [{ price: '0.52', size: '5' }],
};

test('tick_size_change republishes the book with the new tick size, same id and time', async () => {
  const { stream, books } = streamWithCapture();
  stream.handleFrame(JSON.stringify([book]));
  stream.handleFrame(
    JSON.stringify({
      event_type: 'tick_size_change',
      market: MARKET,
      asset_id: YES,
      old_tick_size: '0.01',
      new_tick_size: '0.001',
      timestamp: '1767225601000',
    }),
  );
  await stream.stop();
  const snapshots = books();
  expect(snapshots.map((b) => b.tick_size)).toEqual([0.01, 0.001]);
  expect(snapshots[1]).toMatchObject({
    event_id: snapshots[0]!.event_id,
    timestamp_ms: snapshots[0]!.timestamp_ms,
    bids: [{ price: 0.48, size: 10 }],
  });
  expect(snapshots[1]!.ingested_at_ms).toBeGreaterThanOrEqual(snapshots[0]!.ingested_at_ms);
});

test('tick_size_change for a token without a known book publishes nothing', async () => {
  const { stream, books } = streamWithCapture();
  stream.handleFrame(
    JSON.stringify({ event_type: 'tick_size_change', market: MARKET, asset_id: NO, old_tick_size: '0.01', new_tick_size: '0.001' }),
  );
  await stream.stop();
  expect(books()).toEqual([]);
  expect(stream.stats.dead_lettered).toBe(0);
});

test('new_market hands over its tokens', async () => {
  const announced: string[][] = [];
  const { stream } = streamWithCapture((ids) => announced.push(ids));
  stream.handleFrame(
    JSON.stringify({
      event_type: 'new_market',
      id: '123',
      market: MARKET,
      slug: 'x',
      question: 'X?',
      assets_ids: [YES, NO],
      outcomes: ['Yes', 'No'],
      timestamp: '1767225600000',
    }),
  );
  await stream.stop();
  expect(announced).toEqual([[YES, NO]]);
});
