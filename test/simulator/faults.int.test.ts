import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { SMALL_WORLD, fixedClock } from './fixtures.js';
import type { Row } from './http.js';

async function statuses(
  sim: RunningSimulator,
  count: number,
): Promise<{ status: number; retryAfter: string | null; source: string | null }[]> {
  const out = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${sim.gammaUrl}/markets?limit=1`);
    await response.arrayBuffer();
    out.push({
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      source: response.headers.get('x-upstream-source'),
    });
  }
  return out;
}

describe('upstream simulator fault injection', () => {
  const options = {
    ...SMALL_WORLD,
    port: 0,
    clock: fixedClock(),
    tickIntervalMs: 60_000,
    faults: { http429Rate: 0.2, http500Rate: 0.1, malformedTradeRate: 0.05 },
  };

  it('answers a deterministic share of requests with 429 (+Retry-After) or 500', async () => {
    const first = await startSimulator(options);
    const second = await startSimulator(options);
    try {
      const a = await statuses(first, 200);
      const b = await statuses(second, 200);
      expect(a).toEqual(b);
      const throttled = a.filter((r) => r.status === 429);
      const failed = a.filter((r) => r.status === 500);
      expect(throttled.length).toBeGreaterThan(20);
      expect(failed.length).toBeGreaterThan(5);
      expect(a.filter((r) => r.status === 200).length).toBeGreaterThan(100);
      for (const response of throttled) expect(Number(response.retryAfter)).toBeGreaterThan(0);
      expect(a.every((r) => r.source === 'simulator')).toBe(true);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('serves a deterministic share of malformed trades, the same ones on every read', async () => {
    const sim = await startSimulator({ ...options, faults: { malformedTradeRate: 0.05 } });
    try {
      const read = async () => (await (await fetch(`${sim.dataUrl}/trades?limit=2000`)).json()) as Row[];
      const rows = await read();
      const malformed = rows.filter(
        (row) =>
          typeof row.price !== 'number' ||
          typeof row.size !== 'number' ||
          typeof row.timestamp !== 'number' ||
          typeof row.conditionId !== 'string' ||
          typeof row.asset !== 'string',
      );
      expect(malformed.length).toBeGreaterThan(40);
      expect(malformed.length).toBeLessThan(180);
      expect(await read()).toEqual(rows);
    } finally {
      await sim.close();
    }
  });

  it('injects nothing unless configured', async () => {
    const sim = await startSimulator({ ...SMALL_WORLD, port: 0, clock: fixedClock(), tickIntervalMs: 60_000 });
    try {
      expect((await statuses(sim, 50)).every((r) => r.status === 200)).toBe(true);
    } finally {
      await sim.close();
    }
  });
});
