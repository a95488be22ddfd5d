/**
 * The catalog sync against the simulator over HTTP: the first sync publishes every market and event
 * (open, closed, archived) once, resuming after a failure from the page it was on; the incremental
 * sync then reads only what changed since its watermark; unsettled markets land in the unresolved set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import type { EventPublisher } from '../../services/events/publisher.js';
import type { GammaEventUpserted, MarketUpserted } from '../../services/events/types.js';
import { CatalogSync } from '../../services/ingest/catalog-sync.js';
import { SourceHealth } from '../../services/ingest/source-health.js';
import { UnresolvedMarkets } from '../../services/ingest/unresolved-markets.js';
import { UpstreamClient } from '../../services/ingest/upstream-client.js';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';

const START = Date.UTC(2026, 10, 21, 12);
let sim: RunningSimulator;
let now = START;

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    seed: 12,
    marketCount: 60,
    walletCount: 20,
    historicTrades: 500,
    historicalMarkets: 450,
    clock: () => now,
  });
});
afterAll(() => sim.close());

/** Records what is published; throws on the `failAt`-th markets publish (a crash mid-sync). */
function capture(failAt = Number.POSITIVE_INFINITY) {
  const markets: MarketUpserted[] = [];
  const events: GammaEventUpserted[] = [];
  let marketPublishes = 0;
  const publisher = {
    publish: async (topic: string, items: unknown[]) => {
      if (topic === 'markets' && ++marketPublishes === failAt) throw new Error('log unavailable');
      if (topic === 'markets') markets.push(...(items as MarketUpserted[]));
      if (topic === 'gammaEvents') events.push(...(items as GammaEventUpserted[]));
      return items.length;
    },
    deadLetter: async () => 0,
  } as unknown as EventPublisher;
  return { publisher, markets, events };
}

test('first sync: everything once, resumed from the page it failed on; then incremental reads only changes', async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-catalog-sync-'));
  const gamma = new UpstreamClient({ name: 'gamma', baseUrl: sim.gammaUrl, budgetPer10s: 10_000, timeoutMs: 10_000 });
  const unresolved = new UnresolvedMarkets(path.join(directory, 'unresolved.json'));
  const health = new SourceHealth();
  const make = (publisher: EventPublisher) =>
    new CatalogSync({
      gamma,
      publisher,
      health,
      logger: pino({ level: 'silent' }),
      unresolved,
      checkpointFile: path.join(directory, 'catalog-sync.json'),
      clock: () => now,
    });

  const crashing = capture(3);
  await expect(make(crashing.publisher).runOnce()).rejects.toThrow('log unavailable');
  const resumed = capture();
  const sync = make(resumed.publisher);
  const run = await sync.runOnce();
  expect(run.mode).toBe('initial');
  expect(sync.initialSyncDone).toBe(true);

  const world = sim.state.world;
  const ids = [...crashing.markets, ...resumed.markets].map((m) => m.market_id);
  expect(new Set(ids)).toEqual(new Set(world.markets.map((m) => m.conditionId)));
  // The resumed run started at the failed page: nothing before it was read twice.
  expect(ids.length).toBe(world.markets.length);
  expect(new Set(resumed.events.map((e) => e.gamma_event_id))).toEqual(new Set(world.events.map((e) => e.id)));
  expect(world.markets.some((m) => m.archived)).toBe(true);
  const progress = health.snapshot().find((s) => s.source === 'gamma.catalog-sync')!;
  expect(progress.progress).toMatchObject({ phase: 'initial sync done', completed: world.markets.length + world.events.length });
  expect(progress.progress!.finished_at).not.toBeNull();

  // Unsettled markets are tracked for re-checks; settled ones are not.
  const unsettled = world.markets.filter((m) => !sim.state.status[m.index]?.resolved);
  expect(unresolved.size).toBe(unsettled.length);

  // Three hours later: incremental reads only what changed (closed or traded since the watermark).
  now += 3 * 3_600_000;
  sim.advance(0);
  const later = capture();
  const incremental = await make(later.publisher).runOnce();
  expect(incremental.mode).toBe('incremental');
  const newlyClosed = world.markets.filter((m) => m.closesAtMs !== null && m.closesAtMs > START && m.closesAtMs <= now);
  expect(newlyClosed.length).toBeGreaterThan(0);
  const seen = new Set(later.markets.map((m) => m.market_id));
  for (const market of newlyClosed) expect(seen.has(market.conditionId)).toBe(true);
  expect(later.markets.length).toBeLessThan(world.markets.length / 4);
  expect(incremental.pages).toBeLessThanOrEqual(6);
});
