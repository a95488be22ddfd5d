/**
 * Reconnect discipline against the simulator's websocket: a server that accepts, sends one frame and
 * closes is retried with growing delays (the backoff resets only after a connection stayed up for
 * the stable interval, not on any message), so it is not hammered every half second.
 */
import { pino } from 'pino';
import type { EventPublisher } from '../../services/events/publisher.js';
import { MarketStream } from '../../services/ingest/market-stream.js';
import { SourceHealth } from '../../services/ingest/source-health.js';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    seed: 3,
    marketCount: 12,
    walletCount: 10,
    historicTrades: 100,
    clock: () => Date.UTC(2026, 10, 21),
    faults: { wsDisconnectAfterFrames: 1 },
  });
});
afterAll(() => sim.close());

test('a server that sends one frame and closes gets exponentially spaced reconnects', async () => {
  const publisher = { publish: async (_topic: string, events: unknown[]) => events.length } as unknown as EventPublisher;
  const stream = new MarketStream({
    url: sim.wsUrl,
    publisher,
    health: new SourceHealth(),
    logger: pino({ level: 'silent' }),
    source: 'simulator',
    resync: async () => [],
    reconnectBaseMs: 50,
    reconnectMaxMs: 10_000,
    stableAfterMs: 60_000,
    // Always the upper half of the ceiling: delays 25+, 50+, 100+, 200+, 400+, 800+, 1600+ ms.
    random: () => 0.999,
  });
  const tokens = sim.state.world.markets.filter((m) => sim.state.isAcceptingOrders(m.index)).flatMap((m) => m.tokenIds);
  stream.follow(tokens);
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  await stream.stop();
  // Every connection delivered its one frame...
  expect(stream.stats.frames).toBeGreaterThanOrEqual(3);
  // ...yet within 2.5 s at most 6 reconnects fit (50 + 100 + 200 + 400 + 800 = 1550 ms, + 1600 > 2500);
  // resetting on every message would have reconnected every ~50 ms, dozens of times.
  expect(stream.stats.reconnects).toBeLessThanOrEqual(6);
  expect(stream.stats.reconnects).toBeGreaterThanOrEqual(3);
});
