/**
 * The websocket's events stay buffered until they are published: a publish that fails mid-burst is
 * retried (everything arrives once, in order), one that keeps failing is dead-lettered with the
 * reason, and while the backlog is too large the health says so. No socket: frames are fed directly.
 */
import { pino } from 'pino';
import type { EventPublisher } from '../../services/events/publisher.js';
import type { DeadLetter, PriceTick } from '../../services/events/types.js';
import { MarketStream } from '../../services/ingest/market-stream.js';
import { SourceHealth } from '../../services/ingest/source-health.js';

const MARKET = `0x${'ab'.repeat(32)}`;
const YES = '1'.repeat(70);

/** A publisher whose `failing(topic)` calls reject while the predicate says so. */
function flakyPublisher(failing: (topic: string, call: number) => boolean) {
  const published: Array<{ topic: string; events: unknown[] }> = [];
  let calls = 0;
  const publisher = {
    publish: async (topic: string, events: unknown[]) => {
      calls += 1;
      if (failing(topic, calls)) throw new Error(`log unavailable (call ${calls})`);
      published.push({ topic, events });
      return events.length;
    },
    deadLetter: async (events: unknown[]) => publisher.publish('deadLetters', events),
  };
  return { publisher: publisher as unknown as EventPublisher, published };
}

const lastTrade = (i: number) =>
  JSON.stringify({
    event_type: 'last_trade_price',
    market: MARKET,
    asset_id: YES,
    price: '0.5',
    size: String(i + 1),
    side: 'BUY',
    timestamp: String(1767225600000 + i),
  });

function stream(publisher: EventPublisher, health: SourceHealth, publishAttempts = 5, monotonic?: () => number) {
  return new MarketStream({
    monotonic,
    url: 'ws://127.0.0.1:1/unused',
    publisher,
    health,
    logger: pino({ level: 'silent' }),
    source: 'simulator',
    resync: async () => [],
    flushIntervalMs: 5,
    publishAttempts,
    publishRetryMs: () => 20,
  });
}

test('a publish failure mid-burst loses nothing: every tick is published once, in arrival order', async () => {
  // The 2nd to 4th produce calls fail: the burst is cut in the middle of its flushes.
  const { publisher, published } = flakyPublisher((topic, call) => topic === 'priceTicks' && call >= 2 && call <= 4);
  const health = new SourceHealth();
  const ws = stream(publisher, health);
  let sawDegraded = false;
  for (let i = 0; i < 200; i++) {
    ws.handleFrame(lastTrade(i));
    if (i % 20 === 19) {
      await new Promise((resolve) => setTimeout(resolve, 15));
      sawDegraded ||= health.snapshot().find((s) => s.source === 'clob.ws')!.degraded;
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  await ws.stop();
  const ticks = published.filter((p) => p.topic === 'priceTicks').flatMap((p) => p.events as PriceTick[]);
  expect(ticks.map((t) => t.size)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  expect(sawDegraded).toBe(true);
  expect(ws.stats.publish_failures).toBe(3);
  expect(ws.stats.publish_dead_lettered).toBe(0);
  expect(health.snapshot().find((s) => s.source === 'clob.ws')!.degraded).toBe(false);
});

test('a publish that keeps failing is dead-lettered with the reason after the configured attempts', async () => {
  const { publisher, published } = flakyPublisher((topic) => topic === 'priceTicks');
  const ws = stream(publisher, new SourceHealth(), 3);
  for (let i = 0; i < 5; i++) ws.handleFrame(lastTrade(i));
  await new Promise((resolve) => setTimeout(resolve, 300));
  await ws.stop();
  const letters = published.filter((p) => p.topic === 'deadLetters').flatMap((p) => p.events as DeadLetter[]);
  expect(letters).toHaveLength(5);
  expect(letters[0]).toMatchObject({
    origin: 'clob-ws/priceTicks',
    reason: expect.stringMatching(/^publish to priceTicks failed 3 times: log unavailable/),
  });
  expect((JSON.parse(letters[4]!.raw) as PriceTick).size).toBe(5);
  expect(ws.stats.publish_dead_lettered).toBe(5);
  expect(ws.bufferedEvents).toBe(0);
});

test('a retry timer that wakes before its retry is due re-arms: the backlog is published without another frame', async () => {
  // Timers fire by the loop's cached millisecond clock, which can read behind performance.now(): here
  // the retry clock stands still until the test moves it, so every wake-up before then is early.
  let monotonicMs = 1_000;
  const { publisher, published } = flakyPublisher((topic, call) => topic === 'priceTicks' && call === 1);
  const ws = stream(publisher, new SourceHealth(), 5, () => monotonicMs);
  ws.handleFrame(lastTrade(0));
  await new Promise((resolve) => setTimeout(resolve, 80)); // the flush failed; the 20 ms retry woke early
  expect(ws.stats.publish_failures).toBe(1);
  expect(published).toEqual([]);
  monotonicMs += 25; // now due; no frame arrives to trigger a flush
  await new Promise((resolve) => setTimeout(resolve, 80));
  expect(published.filter((p) => p.topic === 'priceTicks').flatMap((p) => (p.events as PriceTick[]).map((t) => t.size))).toEqual([1]);
  expect(ws.bufferedEvents).toBe(0);
  await ws.stop();
});
